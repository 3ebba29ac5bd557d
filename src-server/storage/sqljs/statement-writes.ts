/**
 * Inserting statements into the embedded database: the check of a batch (conflicts, repeats)
 * that builds its journal operation, and applying that operation — the statement rows, their
 * index terms, StatementRef targets, attachments, the statement as received (received.ts),
 * voiding, and in the same transaction the
 * Activity definitions (activities.ts) and the ingestion counts (ingestion.ts).
 */
import type { IndexTerm, InsertStatementsResult, StatementRow } from '../storage';
import { dedupeTerms, signatureOf, signatureOfStored } from '../row-values';
import { mergeActivityDefinitions, upsertActivities } from './activities';
import type { ActivityOpRow } from './activities';
import { toMs } from './apply-state';
import type { ApplyState } from './apply-state';
import { keepStatementNames } from './explorer-names';
import { receivedColumns } from './received';
import { STATEMENT_AND_CONTEXT, receivedColumn, signatureColumn, signatureText, statementColumn, statementTextAt } from './statement-codec';
import type { Sql } from './sql';
import { insertStatementTarget, targetOf } from './statement-targets';
import { insertPostings } from './terms';

/** A statement row as journaled: the values of StatementRow, with its seq decided. */
interface StatementOpRow
  extends Pick<
    StatementRow,
    'statementId' | 'statement' | 'signature' | 'stored' | 'keyId' | 'verbId' | 'registration' | 'voidsStatementId' | 'lrsAdded' | 'received' | 'warnings' | 'idMadeByLrs'
  > {
  seq: number;
  /** The StatementRef target (statement-targets.ts); absent in records journaled before targets. */
  targetStatementId?: string | null;
  /** One entry per (kind, value); primary when any occurrence was primary. */
  terms: IndexTerm[];
  /** Content in base64. */
  attachments?: Array<{ sha2: string; contentType: string; content: string }>;
}

export interface InsertStatementsOp {
  t: 'insertStatements';
  storeNum: number;
  rows: StatementOpRow[];
  /** The Activity definitions the rows changed, merged whole (activities.ts). */
  activities?: ActivityOpRow[];
  /**
   * Each row's statement as JSON text and as its UTF-8 bytes, made once when the operation is
   * planned: the journal record and the statements row hold the same bytes, and stringifying a
   * 1 KB statement costs about as much as the rest of its record. Never journaled itself; absent on
   * records read back at start-up, whose statements are stringified at apply.
   */
  statementJson?: StatementJson[];
}

/** A statement's JSON, as text (what the compact form checks) and as the UTF-8 bytes it encodes and the journal holds. */
interface StatementJson {
  text: string;
  bytes: Buffer;
}

function statementJsonOf(statement: unknown): StatementJson {
  const text = JSON.stringify(statement);
  return { text, bytes: Buffer.from(text, 'utf8') };
}

/**
 * Checks a batch against the Store and itself. A row whose id is stored (or earlier in the batch)
 * with the same signature is `unchanged`; with another signature the whole batch is a conflict
 * and `op` is null. Otherwise `op` inserts the new rows (null when there are none). Reads only.
 */
export function planInsertStatements(
  state: ApplyState,
  storeNum: number,
  rows: StatementRow[],
): { result: InsertStatementsResult; op: InsertStatementsOp | null } {
  const inserted: string[] = [];
  const unchanged: string[] = [];
  const toInsert: StatementOpRow[] = [];
  const fresh: StatementRow[] = [];
  const inBatch = new Map<string, StatementRow>();
  let seq = state.lastSeq;
  for (const [index, row] of rows.entries()) {
    // An id the LRS just made up (StatementRow.idMadeByLrs) is stored nowhere yet: no lookup.
    const earlier = inBatch.get(row.statementId);
    const existing = earlier ? signatureOf(earlier) : row.idMadeByLrs ? undefined : storedSignature(state, storeNum, row.statementId);
    if (existing !== undefined) {
      if (existing !== signatureOf(row)) return { result: { ok: false, conflict: { index, statementId: row.statementId } }, op: null };
      unchanged.push(row.statementId);
      continue;
    }
    inBatch.set(row.statementId, row);
    inserted.push(row.statementId);
    toInsert.push(toOpRow(row, ++seq));
    fresh.push(row);
  }
  const result: InsertStatementsResult = { ok: true, inserted, unchanged };
  if (toInsert.length === 0) return { result, op: null };
  // The Activity definitions the new rows change, merged now so the record carries them whole.
  const activities = mergeActivityDefinitions(state.sql, state.definitions, storeNum, fresh);
  const statementJson = toInsert.map((row) => statementJsonOf(row.statement));
  return {
    result,
    op: { t: 'insertStatements', storeNum, rows: toInsert, ...(activities.length > 0 ? { activities } : {}), statementJson },
  };
}

/**
 * An `insertStatements` operation as its journal record holds it (ops.ts, opPayload), in parts
 * written one after the other: the same JSON as JSON.stringify with `rows` and each row's
 * `statement` first, each statement's bytes as planned (statementJson), and statementJson itself
 * left out. Parts, not one string: joining a batch's statements into one string and encoding it
 * again cost 5–6 times what writing the parts does (26 against 4.2–4.8 µs a statement in batches
 * of 100).
 */
export function insertStatementsPayload(op: InsertStatementsOp): Array<string | Uint8Array> {
  const { rows, statementJson, ...rest } = op;
  const parts: Array<string | Uint8Array> = ['{"rows":['];
  for (const [index, { statement, ...others }] of rows.entries()) {
    parts.push(index === 0 ? '{"statement":' : ',{"statement":', statementJson?.[index]?.bytes ?? JSON.stringify(statement), `,${JSON.stringify(others).slice(1)}`);
  }
  parts.push(`],${JSON.stringify(rest).slice(1)}`);
  return parts;
}

/** Applies an `insertStatements` operation. The caller wraps it in a transaction. */
export function applyInsertStatements(state: ApplyState, op: InsertStatementsOp): void {
  const { sql } = state;
  const { storeNum, rows, statementJson } = op;
  for (const [index, row] of rows.entries()) {
    // A voiding statement may arrive before its target (xAPI 2.0 §2.2.4.3 lets the LRS accept it):
    // the target is then stored voided. None can name an id the LRS just made up (the record
    // carries idMadeByLrs, so replay decides the same way).
    const voided =
      !row.idMadeByLrs && sql.first('SELECT 1 FROM statements WHERE store_num = ? AND voids_statement_id = ? LIMIT 1', [storeNum, row.statementId]) ? 1 : 0;
    const [received, lrsAdded] = receivedColumns(row);
    const { text, bytes } = statementJson?.[index] ?? statementJsonOf(row.statement);
    sql.run(
      `INSERT INTO statements (seq, store_num, statement_id, statement, signature, stored, stored_ms, key_id, verb_id,
         registration, voided, voids_statement_id, received, lrs_added, warnings)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        row.seq,
        storeNum,
        row.statementId,
        // The compact forms (statement-codec.ts): reads decode them to the same text.
        statementColumn(state.encoder, text, bytes, row),
        signatureColumn(row.signature ?? ''),
        row.stored,
        toMs(row.stored),
        row.keyId,
        row.verbId,
        row.registration,
        voided,
        row.voidsStatementId,
        receivedColumn(state.encoder, received, bytes),
        lrsAdded,
        row.warnings?.length ? JSON.stringify(row.warnings) : null,
      ],
    );
    insertPostings(sql, state.termIds, storeNum, row.seq, row.terms);
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
  if (op.activities) upsertActivities(sql, state, storeNum, op.activities);
  // The Explorer's names of agents and verbs (explorer-names.ts), derived from the statements.
  keepStatementNames(sql, state.names, storeNum, rows);
  // Console ingestion statistics (ingestion.ts): counted from this record, written in groups.
  state.ingestion.addStatements(storeNum, rows);
}

/**
 * The signature of the Store's statement with this id, if it has one. Its statement is read only
 * where the signature was left to be computed (StatementRow.signature), as on PostgreSQL.
 */
function storedSignature(state: ApplyState, storeNum: number, statementId: string): string | undefined {
  const { sql } = state;
  const where = [storeNum, statementId];
  const row = sql.first('SELECT signature FROM statements WHERE store_num = ? AND statement_id = ?', where);
  if (!row) return undefined;
  return signatureOfStored(signatureText(row[0]), () =>
    statementTextAt(sql.first(`SELECT ${STATEMENT_AND_CONTEXT} FROM statements WHERE store_num = ? AND statement_id = ?`, where)!, 0),
  );
}

function toOpRow(row: StatementRow, seq: number): StatementOpRow {
  const opRow: StatementOpRow = {
    seq,
    statementId: row.statementId,
    statement: row.statement,
    signature: row.signature,
    stored: row.stored,
    keyId: row.keyId,
    verbId: row.verbId,
    registration: row.registration,
    voidsStatementId: row.voidsStatementId,
    targetStatementId: row.targetStatementId ?? null,
    terms: dedupeTerms(row.terms),
  };
  // Only when given: a record without them is the same bytes as before they existed.
  if (row.lrsAdded !== undefined) opRow.lrsAdded = [...row.lrsAdded];
  if (row.received !== undefined) opRow.received = row.received;
  if (row.idMadeByLrs) opRow.idMadeByLrs = true;
  if (row.warnings?.length) opRow.warnings = row.warnings.map(({ field, message }) => ({ field, message }));
  if (row.attachments?.length) {
    opRow.attachments = row.attachments.map((a) => ({
      sha2: a.sha2,
      contentType: a.contentType,
      content: Buffer.from(a.content).toString('base64'),
    }));
  }
  return opRow;
}

/**
 * Statements accepted with warnings (xapi/statement-warnings.ts) keep them as JSON; NULL for none.
 * Added at open when missing (the schema version stays 1: nothing older reads the column), with
 * a partial index so "only those with warnings" reads only them.
 */
export function ensureWarningsColumn(sql: Sql): void {
  const columns = new Set(sql.all("SELECT name FROM pragma_table_info('statements')").map(([name]) => name as string));
  if (!columns.has('warnings')) sql.db.exec('ALTER TABLE statements ADD COLUMN warnings TEXT');
  sql.db.exec('CREATE INDEX IF NOT EXISTS statements_warned ON statements (store_num) WHERE warnings IS NOT NULL');
}
