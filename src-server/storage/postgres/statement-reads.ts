/**
 * Reading statements from PostgreSQL: one by id, GET /statements pages (with the statements that
 * match through their StatementRef target), and raw attachments.
 */
import { LazyStoredStatement } from '../row-values';
import type { StatementPage, StatementQuery, StoredStatement } from '../storage';
import type { PostgresDatabase } from './database';
import { TIME_LEASE_BASE, earliestTimeLeaseTable } from './record-seq';
import { STATEMENT_COLUMNS, hasTargetableFilter, statementPageQuery } from './statement-queries';

/** A row in STATEMENT_COLUMNS. */
export interface StatementDbRow {
  seq: number;
  statement_id: string;
  statement: string;
  stored: string;
  voided: boolean;
  key_id: string;
}

export function toStoredStatement(row: StatementDbRow): StoredStatement {
  return new LazyStoredStatement(row.seq, row.statement_id, row.statement, row.stored, row.voided, row.key_id);
}

export async function findStatementRow(db: PostgresDatabase, storeNum: number, statementId: string): Promise<StoredStatement | null> {
  const [row] = await db.prepared<StatementDbRow>(`SELECT ${STATEMENT_COLUMNS} FROM statements AS s WHERE s.store_num = $1 AND s.statement_id = $2`, [
    storeNum,
    statementId,
  ]);
  return row ? toStoredStatement(row) : null;
}

/** findStatementRow and the earliest time lease (record-seq.ts) in one round trip. */
export async function findStatementRowWithLease(
  db: PostgresDatabase,
  storeNum: number,
  statementId: string,
): Promise<{ statement: StoredStatement | null; earliestTimeLease: number | null }> {
  const [row] = await db.prepared<Partial<StatementDbRow> & { earliest_time_lease: number | null }>(
    `SELECT lease.earliest_time_lease, ${STATEMENT_COLUMNS} FROM ${earliestTimeLeaseTable('$3')} AS lease
     LEFT JOIN statements AS s ON s.store_num = $1 AND s.statement_id = $2`,
    [storeNum, statementId, TIME_LEASE_BASE],
  );
  return { statement: row?.seq == null ? null : toStoredStatement(row as StatementDbRow), earliestTimeLease: row?.earliest_time_lease ?? null };
}

/** One page of GET /statements; `limit` is checked by the caller. */
export async function queryStatementRows(db: PostgresDatabase, storeNum: number, query: StatementQuery): Promise<StatementPage> {
  const { limit } = query;
  const page = statementPageQuery(storeNum, query, limit + 1);
  // Prepared (planned once per connection), but a key's own statements: the plan for any key
  // would walk the whole Store rather than the key's index (postgres-plans.test.ts checks both).
  let rows = query.keyId === undefined ? await db.prepared<StatementDbRow>(page.text, page.values) : await db.query<StatementDbRow>(page.text, page.values);
  if (hasTargetableFilter(query)) {
    // Both halves (statements that meet the filters through their StatementRef target too): the
    // page is the first limit + 1 of them, in the query's order, each row once.
    const direction = query.ascending ? 1 : -1;
    rows = [...new Map(rows.map((row) => [row.seq, row])).values()].sort((a, b) => direction * (a.seq - b.seq)).slice(0, limit + 1);
  }
  const statements = rows.slice(0, limit).map(toStoredStatement);
  return { statements, nextAfterSeq: rows.length > limit ? statements[statements.length - 1]!.seq : null };
}

/** Raw attachments by sha2 (xAPI §2.4.11), each sha2 once. */
export async function findAttachmentRows(
  db: PostgresDatabase,
  storeNum: number,
  sha2s: string[],
): Promise<Array<{ sha2: string; contentType: string; content: Uint8Array }>> {
  if (sha2s.length === 0) return [];
  const rows = await db.query<{ sha2: string; content_type: string; content: Buffer }>(
    'SELECT sha2, content_type, content FROM attachments WHERE store_num = $1 AND sha2 = ANY($2::text[])',
    [storeNum, [...new Set(sha2s)]],
  );
  return rows.map((row) => ({ sha2: row.sha2, contentType: row.content_type, content: new Uint8Array(row.content) }));
}
