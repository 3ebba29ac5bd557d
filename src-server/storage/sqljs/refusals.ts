/**
 * The log of refused requests in the embedded database: requests answered 4xx/5xx before any
 * statement of theirs reached the rejected-statement log (credentials, version header, content
 * type, body, limits, unknown paths). One table for every Store (`store_num`) and the service
 * (`store_num` 0: requests that name no Store, the admin API), newest first by id.
 *
 * Ids are decided when a write is planned (the table's last id + 1), so replay inserts the same
 * rows under the same ids. Pruning reuses the rejected log's bounds and chunking (retention.ts).
 */
import { refusalFields } from '../row-values';
import type { RefusalPage, RefusalQuery, RefusalRow, StoredRefusal } from '../storage';
import { PRUNE_CHUNK } from './retention';
import type { RetentionBounds } from './retention';
import type { ApplyState } from './apply-state';
import type { Row, Sql } from './sql';

/** `store_num` of the service-wide log: Store numbers start at 1. */
export const SERVICE_WIDE = 0;
const DAY_MS = 24 * 60 * 60_000;

interface RefusalOpRow extends RefusalRow {
  id: number;
  storeNum: number;
}

export interface InsertRefusalsOp {
  t: 'insertRefusals';
  rows: RefusalOpRow[];
}

export interface PruneRefusalsOp {
  t: 'pruneRefusals';
  storeNum: number;
  /** Rows with id up to this one are beyond the count kept (0: none). */
  throughId: number;
  /** Rows last seen before this time (epoch ms) are too old. */
  beforeMs: number;
  /** Only rows up to this id: the chunk's end. */
  maxId: number;
}

export type RefusalOp = InsertRefusalsOp | PruneRefusalsOp;

export function ensureRefusalsTable(sql: Sql): void {
  sql.db.exec(`
    CREATE TABLE IF NOT EXISTS refusals (
      id INTEGER PRIMARY KEY,
      store_num INTEGER NOT NULL,
      at TEXT NOT NULL,
      last_at TEXT NOT NULL,
      last_ms INTEGER NOT NULL,
      count INTEGER NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      status INTEGER NOT NULL,
      code TEXT NOT NULL,
      reason TEXT NOT NULL,
      key_id TEXT,
      client TEXT NOT NULL,
      user_agent TEXT
    );
    CREATE INDEX IF NOT EXISTS refusals_store ON refusals (store_num);
  `);
}

/** The operation that inserts `rows` (each with its Store number, 0: service-wide); null for none. */
export function insertRefusalsOp(state: ApplyState, rows: Array<RefusalRow & { storeNum: number }>): InsertRefusalsOp | null {
  if (rows.length === 0) return null;
  const [last] = state.sql.first('SELECT max(id) FROM refusals')!;
  const first = ((last as number | null) ?? 0) + 1;
  return {
    t: 'insertRefusals',
    // Exactly the interface's fields: nothing else a caller attached reaches the journal.
    rows: rows.map((r, i) => ({ id: first + i, storeNum: r.storeNum, ...refusalFields(r) })),
  };
}

export function applyRefusalOp(state: ApplyState, op: RefusalOp): void {
  const { sql } = state;
  if (op.t === 'pruneRefusals') {
    sql.run('DELETE FROM refusals WHERE store_num = ? AND id <= ? AND (id <= ? OR last_ms < ?)', [op.storeNum, op.maxId, op.throughId, op.beforeMs]);
    return;
  }
  for (const r of op.rows) {
    sql.run(
      `INSERT INTO refusals (id, store_num, at, last_at, last_ms, count, method, path, status, code, reason, key_id, client, user_agent)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.id, r.storeNum, r.at, r.lastAt, Date.parse(r.lastAt), r.count, r.method, r.path, r.status, r.code, r.reason, r.keyId, r.client, r.userAgent],
    );
  }
}

/** The columns toStoredRefusal reads, in its order. */
export const REFUSAL_COLUMNS = 'id, at, last_at, count, method, path, status, code, reason, key_id, client, user_agent';

/** A row of REFUSAL_COLUMNS as stored, in the log of `storeId` (null: the service's). */
export function toStoredRefusal(row: Row, storeId: string | null): StoredRefusal {
  return {
    id: row[0] as number,
    storeId,
    at: row[1] as string,
    lastAt: row[2] as string,
    count: row[3] as number,
    method: row[4] as string,
    path: row[5] as string,
    status: row[6] as number,
    code: row[7] as string,
    reason: row[8] as string,
    keyId: row[9] as string | null,
    client: row[10] as string,
    userAgent: row[11] as string | null,
  };
}

/** One page of a log (`storeNum` 0: the service's), newest first. */
export function listRefusalRows(sql: Sql, storeNum: number, storeId: string | null, query: Pick<RefusalQuery, 'limit' | 'beforeId'>): RefusalPage {
  const rows = sql.all(
    `SELECT ${REFUSAL_COLUMNS}
       FROM refusals INDEXED BY refusals_store WHERE store_num = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    [storeNum, query.beforeId ?? Number.MAX_SAFE_INTEGER, query.limit + 1],
  );
  const refusals = rows.slice(0, query.limit).map((row) => toStoredRefusal(row, storeId));
  return { refusals, nextBeforeId: rows.length > query.limit ? refusals[refusals.length - 1]!.id : null };
}

/** The next pruning step of one log, under the rejected log's rules (retention.ts); null when nothing is due. */
export function planPruneRefusals(sql: Sql, storeNum: number, bounds: RetentionBounds, nowMs: number): PruneRefusalsOp | null {
  const beyond = sql.first('SELECT id FROM refusals INDEXED BY refusals_store WHERE store_num = ? ORDER BY id DESC LIMIT 1 OFFSET ?', [
    storeNum,
    bounds.maxPerStore,
  ]);
  const throughId = (beyond?.[0] as number | undefined) ?? 0;
  const beforeMs = nowMs - bounds.maxAgeDays * DAY_MS;
  const [maxId] = sql.first(
    `SELECT max(id) FROM (SELECT id FROM refusals INDEXED BY refusals_store
       WHERE store_num = ? AND (id <= ? OR last_ms < ?) ORDER BY id LIMIT ?)`,
    [storeNum, throughId, beforeMs, PRUNE_CHUNK],
  )!;
  if (maxId === null) return null;
  return { t: 'pruneRefusals', storeNum, throughId, beforeMs, maxId: maxId as number };
}
