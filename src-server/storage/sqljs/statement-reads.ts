/**
 * Reading statements from the embedded database: one by id, GET /statements pages (with the
 * statements that match through their StatementRef target), and raw attachments.
 */
import { LazyStoredStatement } from '../row-values';
import type { StatementPage, StatementQuery, StoredStatement } from '../storage';
import { STATEMENT_COLUMNS, runQuery, statementQuery } from './queries';
import type { Row, Sql } from './sql';
import { statementTextOrUtf8 } from './statement-codec';
import { hasTargetableFilter, hasTargetingStatements, targetingStatementQuery } from './statement-targets';

export function findStatementRow(sql: Sql, storeNum: number, statementId: string): StoredStatement | null {
  const row = sql.first(`SELECT ${STATEMENT_COLUMNS} FROM statements AS s WHERE s.store_num = ? AND s.statement_id = ?`, [
    storeNum,
    statementId,
  ]);
  return row ? toStoredStatement(row) : null;
}

/** One page of GET /statements; `limit` is checked by the caller. */
export function queryStatementRows(sql: Sql, storeNum: number, query: StatementQuery): StatementPage {
  const { limit } = query;
  let rows = runQuery(sql, statementQuery(storeNum, query, limit + 1));
  if (hasTargetableFilter(query) && hasTargetingStatements(sql, storeNum)) {
    // Statements that meet the filters through their StatementRef target (statement-targets.ts):
    // the page is the first limit + 1 of both halves, in the query's order, each row once.
    const seen = new Set(rows.map((row) => row[0] as number));
    const targeting = runQuery(sql, targetingStatementQuery(storeNum, query, limit + 1)).filter((row) => !seen.has(row[0] as number));
    if (targeting.length > 0) {
      const direction = query.ascending ? 1 : -1;
      rows = [...rows, ...targeting].sort((a, b) => direction * ((a[0] as number) - (b[0] as number))).slice(0, limit + 1);
    }
  }
  const statements = rows.slice(0, limit).map(toStoredStatement);
  return {
    statements,
    nextAfterSeq: rows.length > limit ? statements[statements.length - 1]!.seq : null,
  };
}

/** Raw attachments by sha2 (xAPI §2.4.11), each sha2 once. */
export function findAttachmentRows(
  sql: Sql,
  storeNum: number,
  sha2s: string[],
): Array<{ sha2: string; contentType: string; content: Uint8Array }> {
  const found = [];
  for (const sha2 of new Set(sha2s)) {
    const row = sql.first('SELECT content_type, content FROM attachments WHERE store_num = ? AND sha2 = ?', [storeNum, sha2]);
    if (row) found.push({ sha2, contentType: row[0] as string, content: row[1] as Uint8Array });
  }
  return found;
}

/** A row in STATEMENT_COLUMNS order. */
export function toStoredStatement(row: Row): StoredStatement {
  const [seq, statementId, , stored, voided, keyId] = row as [number, string, unknown, string, number, string];
  return new LazyStoredStatement(seq, statementId, statementTextOrUtf8(row[2], { statementId, stored, keyId }), stored, voided === 1, keyId);
}
