/**
 * The logical operations the journal records, and the one function that applies them. Every value
 * an operation needs (seq numbers, store numbers, timestamps) is decided before it is journaled,
 * so applying a record at start-up does exactly what applying it at run time did.
 */
import type { ApiKeyPatch, ApiKeyRecord, IndexTerm, RejectionRow, StoreRecord } from '../storage';
import { applyDocumentOp } from './documents';
import type { DocumentOp } from './documents';
import { deleteStoreActivities, upsertActivities } from './activities';
import type { ActivityOpRow } from './activities';
import type { Sql } from './sql';
import { applyEmptyStore } from './empty-store';
import type { EmptyStoreOp } from './empty-store';
import { countRejections, countStatements, deleteStoreIngestion } from './ingestion';
import { insertStatementTarget, targetOf } from './statement-targets';

export interface StatementOpRow {
  seq: number;
  statementId: string;
  statement: Record<string, unknown>;
  signature: string;
  stored: string;
  keyId: string;
  verbId: string;
  registration: string | null;
  voidsStatementId: string | null;
  /** The StatementRef target (statement-targets.ts); absent in records journaled before targets. */
  targetStatementId?: string | null;
  /** One entry per (kind, value); primary when any occurrence was primary. */
  terms: IndexTerm[];
  /** Content in base64. */
  attachments?: Array<{ sha2: string; contentType: string; content: string }>;
}

export interface RejectionOpRow extends RejectionRow {
  seq: number;
}

export type StorePatch = Partial<Pick<StoreRecord, 'name' | 'updatedAt'>>;

export type Op =
  | { t: 'insertStore'; num: number; store: StoreRecord }
  | { t: 'updateStore'; id: string; patch: StorePatch }
  | { t: 'deleteStore'; id: string }
  | { t: 'insertApiKey'; key: ApiKeyRecord }
  | { t: 'updateApiKey'; id: string; patch: ApiKeyPatch }
  /** Coalesced last-used times: each only ever moves a key's time forward. */
  | { t: 'touchApiKeys'; touches: Array<[id: string, lastUsedAt: string]> }
  /** `activities`: the Activity definitions the rows changed, merged whole (activities.ts). */
  | { t: 'insertStatements'; storeNum: number; rows: StatementOpRow[]; activities?: ActivityOpRow[] }
  | { t: 'insertRejections'; storeNum: number; rows: RejectionOpRow[] }
  /** State, Activity Profile and Agent Profile documents: see documents.ts. */
  | DocumentOp
  /** Console: every row of a Store but the Store and its keys (empty-store.ts). */
  | EmptyStoreOp;

export interface StoreCounts {
  statements: number;
  rejections: number;
}

/** What applying operations keeps besides the database: lookups the hot paths need. */
export interface ApplyState {
  sql: Sql;
  /** Store id → store number. */
  storeNums: Map<string, number>;
  counts: Map<number, StoreCounts>;
  /** The highest statement/rejection seq applied. */
  lastSeq: number;
}

const API_KEY_COLUMNS: Record<keyof ApiKeyPatch, string> = {
  name: 'name',
  lastUsedAt: 'last_used_at',
  expiresAt: 'expires_at',
  revokedAt: 'revoked_at',
  replacedBy: 'replaced_by',
};

const STORE_COLUMNS: Record<keyof StorePatch, string> = { name: 'name', updatedAt: 'updated_at' };

/** Touch only moves forward, so touches commute with each other and with their replay. */
export const TOUCH_API_KEY_SQL =
  'UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?2)';

/** Applies one operation. The caller wraps it in a transaction. */
export function applyOp(state: ApplyState, op: Op): void {
  const { sql } = state;
  switch (op.t) {
    case 'insertStore': {
      const s = op.store;
      sql.run(
        'INSERT INTO stores (num, id, slug, name, environment, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [op.num, s.id, s.slug, s.name, s.environment, s.createdAt, s.updatedAt],
      );
      state.storeNums.set(s.id, op.num);
      state.counts.set(op.num, { statements: 0, rejections: 0 });
      return;
    }
    case 'updateStore':
      runPatch(sql, 'stores', STORE_COLUMNS, op.id, op.patch);
      return;
    case 'deleteStore': {
      const num = state.storeNums.get(op.id);
      if (num !== undefined) {
        for (const table of ['statement_terms', 'statements', 'attachments', 'rejections', 'documents']) {
          sql.run(`DELETE FROM ${table} WHERE store_num = ?`, [num]);
        }
        deleteStoreActivities(sql, num);
        sql.run('DELETE FROM statement_targets WHERE store_num = ?', [num]);
        deleteStoreIngestion(sql, num); // console statistics (ingestion.ts)
      }
      sql.run('DELETE FROM api_keys WHERE store_id = ?', [op.id]);
      sql.run('DELETE FROM stores WHERE id = ?', [op.id]);
      state.storeNums.delete(op.id);
      if (num !== undefined) state.counts.delete(num);
      return;
    }
    case 'insertApiKey': {
      const k = op.key;
      sql.run(
        `INSERT INTO api_keys (id, store_id, name, secret_hash, scopes, environment, created_at, last_used_at,
           expires_at, revoked_at, replaced_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          k.id,
          k.storeId,
          k.name,
          k.secretHash,
          JSON.stringify(k.scopes),
          k.environment,
          k.createdAt,
          k.lastUsedAt,
          k.expiresAt,
          k.revokedAt,
          k.replacedBy,
        ],
      );
      return;
    }
    case 'updateApiKey':
      runPatch(sql, 'api_keys', API_KEY_COLUMNS, op.id, op.patch);
      return;
    case 'touchApiKeys':
      for (const [id, lastUsedAt] of op.touches) sql.run(TOUCH_API_KEY_SQL, [id, lastUsedAt]);
      return;
    case 'insertStatements':
      applyInsertStatements(state, op.storeNum, op.rows);
      if (op.activities) upsertActivities(sql, op.storeNum, op.activities);
      // Console ingestion statistics (ingestion.ts): counted in this same transaction.
      countStatements(sql, op.storeNum, op.rows);
      return;
    case 'insertRejections': {
      for (const r of op.rows) {
        sql.run(
          `INSERT INTO rejections (seq, store_num, received_at, received_ms, key_id, statement_id, payload, error,
             agent, verb_id, activity_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            r.seq,
            op.storeNum,
            r.receivedAt,
            toMs(r.receivedAt),
            r.keyId,
            r.statementId,
            JSON.stringify(r.payload ?? null),
            JSON.stringify(r.error),
            r.agent,
            r.verbId,
            r.activityId,
          ],
        );
        state.lastSeq = Math.max(state.lastSeq, r.seq);
      }
      const counts = state.counts.get(op.storeNum);
      if (counts) counts.rejections += op.rows.length;
      // Console ingestion statistics (ingestion.ts): counted in this same transaction.
      countRejections(sql, op.storeNum, op.rows);
      return;
    }
    case 'upsertDocument':
    case 'deleteDocuments':
      applyDocumentOp(sql, op);
      return;
    case 'emptyStore':
      applyEmptyStore(state, op);
      return;
    default: {
      const unknown: never = op;
      throw new Error(`unknown journal operation ${JSON.stringify((unknown as { t?: unknown }).t)}`);
    }
  }
}

function applyInsertStatements(state: ApplyState, storeNum: number, rows: StatementOpRow[]): void {
  const { sql } = state;
  for (const row of rows) {
    // A voiding statement may arrive before its target (xAPI 2.0 §2.2.4.3 lets the LRS accept it):
    // the target is then stored voided.
    const voided = sql.first('SELECT 1 FROM statements WHERE store_num = ? AND voids_statement_id = ? LIMIT 1', [
      storeNum,
      row.statementId,
    ])
      ? 1
      : 0;
    sql.run(
      `INSERT INTO statements (seq, store_num, statement_id, statement, signature, stored, stored_ms, key_id, verb_id,
         registration, voided, voids_statement_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.seq,
        storeNum,
        row.statementId,
        JSON.stringify(row.statement),
        row.signature,
        row.stored,
        toMs(row.stored),
        row.keyId,
        row.verbId,
        row.registration,
        voided,
        row.voidsStatementId,
      ],
    );
    insertTerms(sql, storeNum, row.seq, row.terms);
    insertStatementTarget(sql, storeNum, row.seq, targetOf(row));
    for (const a of row.attachments ?? []) {
      sql.run('INSERT OR IGNORE INTO attachments (store_num, sha2, content_type, content) VALUES (?, ?, ?, ?)', [
        storeNum,
        a.sha2,
        a.contentType,
        Buffer.from(a.content, 'base64'),
      ]);
    }
    state.lastSeq = Math.max(state.lastSeq, row.seq);
  }
  for (const row of rows) {
    if (row.voidsStatementId === null) continue;
    sql.run('UPDATE statements SET voided = 1 WHERE store_num = ? AND statement_id = ? AND voided = 0', [
      storeNum,
      row.voidsStatementId,
    ]);
  }
  const counts = state.counts.get(storeNum);
  if (counts) counts.statements += rows.length;
}

/** Terms go in by multi-row INSERTs of up to TERMS_PER_INSERT rows: one call into SQLite, not one per term. */
const TERMS_PER_INSERT = 8;
const termInsertSql = (n: number): string =>
  `INSERT INTO statement_terms (store_num, kind, value, is_primary, seq) VALUES ${Array(n).fill('(?, ?, ?, ?, ?)').join(', ')}`;
const TERM_INSERT_SQL = Array.from({ length: TERMS_PER_INSERT + 1 }, (_, n) => termInsertSql(n));

function insertTerms(sql: Sql, storeNum: number, seq: number, terms: IndexTerm[]): void {
  for (let start = 0; start < terms.length; start += TERMS_PER_INSERT) {
    const chunk = terms.slice(start, start + TERMS_PER_INSERT);
    const params: Array<string | number> = [];
    for (const term of chunk) params.push(storeNum, term.kind, term.value, term.primary ? 1 : 0, seq);
    sql.run(TERM_INSERT_SQL[chunk.length]!, params);
  }
}

function runPatch<P extends object>(
  sql: Sql,
  table: string,
  columns: Record<keyof P, string>,
  id: string,
  patch: P,
): void {
  const sets: string[] = [];
  const params: Array<string | null> = [];
  for (const [key, column] of Object.entries(columns) as Array<[keyof P, string]>) {
    const value = patch[key];
    if (value === undefined) continue;
    sets.push(`${column} = ?`);
    params.push(value as string | null);
  }
  if (sets.length === 0) return;
  sql.run(`UPDATE ${table} SET ${sets.join(', ')} WHERE id = ?`, [...params, id]);
}

/**
 * ISO 8601 → epoch milliseconds. Sub-millisecond digits are dropped; `stored` times are whole
 * milliseconds (the LRS sets them), so `stored_ms > since` and `stored_ms <= until` stay exact.
 */
export function toMs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 time: ${JSON.stringify(iso)}`);
  return ms;
}
