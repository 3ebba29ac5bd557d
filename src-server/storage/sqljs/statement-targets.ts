/**
 * Statements that target another statement (a StatementRef object, voiding or not), and the
 * query half that finds them through their target.
 *
 * xAPI 1.0.3 Part Three §2.1.3 "Filter Conditions for StatementRefs" (2.0.0: the same section):
 * for the filters that are not time or sequence based (agent, verb, activity, registration and
 * their related_* forms), a statement that targets another one meets the filters when the
 * targeted statement meets them, recursively ("a targets b which targets c" matches when c does);
 * since, until, limit and the voided rule still apply to the targeting statement itself. A voided
 * target still counts: the voiding statement of a matching statement is returned.
 *
 * The rows hold values the caller decided (StatementRow.targetStatementId); storage does not read
 * statements, except once to fill the table for a database written before it existed, and for
 * journal records of that time (see targetOf).
 */
import type { SqlValue } from 'sql.js';
import type { StatementQuery } from '../storage';
import { STATEMENT_COLUMNS, hasTermCondition, statementTermFilters, storedTimeConditions } from './queries';
import type { BuiltQuery } from './queries';
import type { Sql } from './sql';
import { STATEMENT_TEXT_SQL } from './statement-codec';

/** How many StatementRef hops a filter follows; chains are short in practice, cycles are possible. */
const MAX_TARGET_DEPTH = 16;

const TABLE = `
CREATE TABLE IF NOT EXISTS statement_targets (
  store_num INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  target_id TEXT NOT NULL,
  PRIMARY KEY (store_num, seq)
) WITHOUT ROWID;
`;

/**
 * Creates the table when missing. A database from before it existed gets its rows from the
 * statements it holds (lower-cased ids: statement ids are stored lower-case).
 */
export function ensureStatementTargets(sql: Sql): void {
  const exists = sql.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'statement_targets'");
  if (exists) return;
  sql.db.exec(TABLE);
  sql.db.exec(`
    INSERT INTO statement_targets (store_num, seq, target_id)
    SELECT store_num, seq, lower(json_extract(${STATEMENT_TEXT_SQL}, '$.object.id')) FROM statements
    WHERE json_extract(${STATEMENT_TEXT_SQL}, '$.object.objectType') = 'StatementRef'
      AND json_type(${STATEMENT_TEXT_SQL}, '$.object.id') = 'text'`);
}

/**
 * The target of a journaled statement row. Rows journaled before targets existed lack the field
 * (undefined, as opposed to null): their target is read from the statement, as the fill above does.
 */
export function targetOf(row: { targetStatementId?: string | null; statement: Record<string, unknown> }): string | null {
  if (row.targetStatementId !== undefined) return row.targetStatementId;
  const object = row.statement.object as { objectType?: unknown; id?: unknown } | undefined;
  return object?.objectType === 'StatementRef' && typeof object.id === 'string' ? object.id.toLowerCase() : null;
}

export function insertStatementTarget(sql: Sql, storeNum: number, seq: number, targetId: string | null): void {
  if (targetId === null) return;
  sql.run('INSERT OR REPLACE INTO statement_targets (store_num, seq, target_id) VALUES (?, ?, ?)', [storeNum, seq, targetId]);
}

/**
 * Whether the Store has any statement with a StatementRef object. Most have none, and the
 * targeting half of a query costs ~90 µs even when it finds nothing (measured at 1M statements:
 * ~15% of a filtered GET); this index probe costs ~3 µs.
 */
export function hasTargetingStatements(sql: Sql, storeNum: number): boolean {
  return sql.first('SELECT 1 FROM statement_targets WHERE store_num = ? LIMIT 1', [storeNum]) !== undefined;
}

/** Whether a query has a filter that targeting statements can meet through their target. */
export function hasTargetableFilter(q: StatementQuery): boolean {
  return q.agent !== undefined || q.verbId !== undefined || q.activityId !== undefined || q.registration !== undefined;
}

/**
 * The targeting half of GET /statements: statements with a StatementRef object, not voided, in
 * the time and seq bounds, whose target chain reaches a statement matching the other filters.
 * Walks the targeting statements of the Store in seq order (they are few next to the others) and
 * resolves each chain by the (store, statement id) index; `limit` rows at most.
 */
export function targetingStatementQuery(storeNum: number, q: StatementQuery, limit: number): BuiltQuery {
  const params: SqlValue[] = [];
  const where: string[] = ['g.store_num = ?', 's.voided = 0'];
  params.push(storeNum);
  for (const condition of storedTimeConditions(q)) {
    where.push(condition.sql);
    params.push(...condition.params);
  }
  // The targeting statement is the one returned: it is the one that must be the key's.
  if (q.keyId !== undefined) {
    where.push('s.key_id = ?');
    params.push(q.keyId);
  }
  const descending = !q.ascending;
  if (q.afterSeq !== undefined) {
    where.push(descending ? 'g.seq < ?' : 'g.seq > ?');
    params.push(q.afterSeq);
  }
  if (q.maxSeq !== undefined) {
    where.push('g.seq <= ?');
    params.push(q.maxSeq);
  }

  // The target must match every non-time filter, as a statement matching them directly does.
  const match: string[] = [];
  const matchParams: SqlValue[] = [storeNum];
  if (q.maxSeq !== undefined) {
    match.push('m.seq <= ?');
    matchParams.push(q.maxSeq);
  }
  if (q.verbId !== undefined) {
    match.push('m.verb_id = ?');
    matchParams.push(q.verbId);
  }
  if (q.registration !== undefined) {
    match.push('m.registration = ?');
    matchParams.push(q.registration);
  }
  statementTermFilters(q).forEach((term, i) => {
    const condition = hasTermCondition(`mt${i}`, 'm.seq', storeNum, term);
    match.push(condition.sql);
    matchParams.push(...condition.params);
  });

  // CROSS JOIN pins the order: from each chain link, look the statement up by its id (never walk
  // a Store's statements looking for the link).
  const chain =
    'WITH RECURSIVE chain(id, depth) AS (' +
    'SELECT g.target_id, 1 UNION ' +
    'SELECT g2.target_id, chain.depth + 1 FROM chain ' +
    'CROSS JOIN statements AS t2 ON t2.store_num = ? AND t2.statement_id = chain.id ' +
    'CROSS JOIN statement_targets AS g2 ON g2.store_num = ? AND g2.seq = t2.seq ' +
    `WHERE chain.depth < ${MAX_TARGET_DEPTH}) ` +
    'SELECT 1 FROM chain CROSS JOIN statements AS m ON m.store_num = ? AND m.statement_id = chain.id' +
    (match.length > 0 ? ` WHERE ${match.join(' AND ')}` : '');
  where.push(`EXISTS (${chain})`);
  params.push(storeNum, storeNum, ...matchParams);
  params.push(limit);
  return {
    sql:
      `SELECT ${STATEMENT_COLUMNS} FROM statement_targets AS g CROSS JOIN statements AS s ON s.seq = g.seq ` +
      `WHERE ${where.join(' AND ')} ORDER BY g.seq ${descending ? 'DESC' : 'ASC'} LIMIT ?`,
    params,
  };
}
