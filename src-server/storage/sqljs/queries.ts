/**
 * SQL for the two read paths with many filter combinations: xAPI statement queries and the
 * Statement Explorer. Each query is driven by exactly one index whose order is seq (chosen here,
 * pinned with INDEXED BY / CROSS JOIN so the planner cannot fall back to a sort), and the other
 * filters are checked on the rows that index yields.
 */
import type { SqlValue } from 'sql.js';
import { explorerDrive, explorerLists } from '../explorer-query';
import type { ExplorerDrive, ExplorerLists } from '../explorer-query';
import type { ExplorerQuery, StatementQuery } from '../storage';
import { toMs } from './apply-state';
import type { Row, Sql } from './sql';
import { TERM_ID_SQL } from './terms';

export interface BuiltQuery {
  sql: string;
  params: SqlValue[];
}

export function runQuery(sql: Sql, q: BuiltQuery): Row[] {
  return sql.all(q.sql, q.params);
}

/** Column order of every statement row these queries return. */
export const STATEMENT_COLUMNS = 's.seq, s.statement_id, s.statement, s.stored, s.voided, s.key_id';
/** The Explorer's statement rows: STATEMENT_COLUMNS, then the columns of the statement as received (received.ts). */
const EXPLORER_STATEMENT_COLUMNS = `${STATEMENT_COLUMNS}, s.received, s.lrs_added, s.warnings`;
/** Column order of every rejection row these queries return. */
const REJECTION_COLUMNS = 'r.seq, r.statement_id, r.payload, r.received_at, r.key_id, r.error';

export interface TermFilter {
  kind: 'agent' | 'activity';
  value: string;
  primaryOnly: boolean;
}

export interface Condition {
  sql: string;
  params: SqlValue[];
}

/** The term filters of GET /statements: agent and activity, the primary terms only unless related_*. */
export function statementTermFilters(q: StatementQuery): TermFilter[] {
  const terms: TermFilter[] = [];
  if (q.agent !== undefined) terms.push({ kind: 'agent', value: q.agent, primaryOnly: !q.relatedAgents });
  if (q.activityId !== undefined) terms.push({ kind: 'activity', value: q.activityId, primaryOnly: !q.relatedActivities });
  return terms;
}

/** GET /statements' bounds on `stored`: `since` exclusive, `until` inclusive. */
export function storedTimeConditions(q: StatementQuery): Condition[] {
  const conditions: Condition[] = [];
  if (q.since !== undefined) conditions.push({ sql: 's.stored_ms > ?', params: [toMs(q.since)] });
  if (q.until !== undefined) conditions.push({ sql: 's.stored_ms <= ?', params: [toMs(q.until)] });
  return conditions;
}

/** The statement at `seq` (a column) has `term`; `alias` names the subquery's table. */
export function hasTermCondition(alias: string, seq: string, storeNum: number, term: TermFilter): Condition {
  return {
    sql:
      `EXISTS (SELECT 1 FROM term_postings AS ${alias} WHERE ${alias}.term = ${TERM_ID_SQL} AND ` +
      `${alias}.seq = ${seq}${term.primaryOnly ? ` AND ${alias}.is_primary = 1` : ''})`,
    params: [storeNum, term.kind, term.value],
  };
}

interface SeqBounds {
  above?: number;
  below?: number;
  atMost?: number;
}

interface StatementSelect {
  columns: string;
  storeNum: number;
  terms: TermFilter[];
  /** The index on `statements` that drives the query when no term filter does. */
  index: 'statements_store' | 'statements_verb' | 'statements_registration' | 'statements_voided' | 'statements_warned';
  conditions: Condition[];
  bounds: SeqBounds;
  descending: boolean;
  limit: number;
}

function selectStatements(q: StatementSelect): BuiltQuery {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const [drive, ...others] = q.terms;
  let from: string;
  let seq: string;
  if (drive) {
    // CROSS JOIN fixes the join order: walk the term index in seq order, then fetch each row.
    // The term id is the Store's own (terms.ts): its postings are the Store's statements.
    from = `term_postings AS t${drive.primaryOnly ? ' INDEXED BY term_postings_primary' : ''} CROSS JOIN statements AS s ON s.seq = t.seq`;
    seq = 't.seq';
    where.push(`t.term = ${TERM_ID_SQL}`);
    params.push(q.storeNum, drive.kind, drive.value);
    if (drive.primaryOnly) where.push('t.is_primary = 1');
  } else {
    from = `statements AS s INDEXED BY ${q.index}`;
    seq = 's.seq';
    where.push('s.store_num = ?');
    params.push(q.storeNum);
  }
  const conditions = [...others.map((term, i) => hasTermCondition(`o${i}`, 's.seq', q.storeNum, term)), ...q.conditions];
  for (const c of conditions) {
    where.push(c.sql);
    params.push(...c.params);
  }
  pushBounds(seq, q.bounds, where, params);
  params.push(q.limit);
  return {
    sql: `SELECT ${q.columns} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${seq} ${q.descending ? 'DESC' : 'ASC'} LIMIT ?`,
    params,
  };
}

function pushBounds(seq: string, bounds: SeqBounds, where: string[], params: SqlValue[]): void {
  if (bounds.above !== undefined) {
    where.push(`${seq} > ?`);
    params.push(bounds.above);
  }
  if (bounds.below !== undefined) {
    where.push(`${seq} < ?`);
    params.push(bounds.below);
  }
  if (bounds.atMost !== undefined) {
    where.push(`${seq} <= ?`);
    params.push(bounds.atMost);
  }
}

/** xAPI GET /statements: voided statements hidden; `limit` rows plus one to know whether more match. */
export function statementQuery(storeNum: number, q: StatementQuery, limit: number): BuiltQuery {
  const terms = statementTermFilters(q);
  const conditions: Condition[] = [{ sql: 's.voided = 0', params: [] }];
  if (q.verbId !== undefined) conditions.push({ sql: 's.verb_id = ?', params: [q.verbId] });
  if (q.registration !== undefined) conditions.push({ sql: 's.registration = ?', params: [q.registration] });
  conditions.push(...storedTimeConditions(q));
  // No index on key_id: the chosen index's seq-ordered walk checks it on each row.
  if (q.keyId !== undefined) conditions.push({ sql: 's.key_id = ?', params: [q.keyId] });
  const descending = !q.ascending;
  const bounds: SeqBounds = { atMost: q.maxSeq };
  if (q.afterSeq !== undefined) {
    if (descending) bounds.below = q.afterSeq;
    else bounds.above = q.afterSeq;
  }
  // A registration is usually the most selective filter, then a verb.
  const index =
    q.registration !== undefined ? 'statements_registration' : q.verbId !== undefined ? 'statements_verb' : 'statements_store';
  return selectStatements({ columns: STATEMENT_COLUMNS, storeNum, terms, index, conditions, bounds, descending, limit });
}

/** `column` is the value, or one of the values (several are bound as one JSON array). */
function inListCondition(column: string, values: readonly string[]): Condition {
  return values.length === 1
    ? { sql: `${column} = ?`, params: [values[0]!] }
    : { sql: `${column} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(values)] };
}

/** The statement at `seq` has a term (of any role) of `kind` with one of `values`. */
function hasAnyTermCondition(alias: string, seq: string, storeNum: number, kind: TermFilter['kind'], values: readonly string[]): Condition {
  if (values.length === 1) return hasTermCondition(alias, seq, storeNum, { kind, value: values[0]!, primaryOnly: false });
  return {
    sql:
      `EXISTS (SELECT 1 FROM term_postings AS ${alias} WHERE ${alias}.term IN ` +
      `(SELECT id FROM terms WHERE store_num = ? AND kind = ? AND value IN (SELECT value FROM json_each(?))) AND ${alias}.seq = ${seq})`,
    params: [storeNum, kind, JSON.stringify(values)],
  };
}

/**
 * What the Explorer checks on each statement row besides the filter that drives the walk
 * (explorer-query.ts): status, the other filters, warnings, the time range.
 */
export function explorerConditions(storeNum: number, q: ExplorerQuery, lists: ExplorerLists, drive: ExplorerDrive): Condition[] {
  const conditions: Condition[] = [];
  if (q.status === 'accepted') conditions.push({ sql: 's.voided = 0', params: [] });
  if (q.status === 'voided') conditions.push({ sql: 's.voided = 1', params: [] });
  if (lists.verbs !== undefined && drive?.kind !== 'verb') conditions.push(inListCondition('s.verb_id', lists.verbs));
  if (lists.agents !== undefined && drive?.kind !== 'agent') conditions.push(hasAnyTermCondition('oa', 's.seq', storeNum, 'agent', lists.agents));
  if (lists.activities !== undefined && drive?.kind !== 'activity') {
    conditions.push(hasAnyTermCondition('ox', 's.seq', storeNum, 'activity', lists.activities));
  }
  if (q.registration !== undefined) conditions.push({ sql: 's.registration = ?', params: [q.registration] });
  if (q.warned) conditions.push({ sql: 's.warnings IS NOT NULL', params: [] });
  if (q.since !== undefined) conditions.push({ sql: 's.stored_ms >= ?', params: [toMs(q.since)] });
  if (q.until !== undefined) conditions.push({ sql: 's.stored_ms <= ?', params: [toMs(q.until)] });
  return conditions;
}

/**
 * The Explorer's statement half, accepted and voided statements newest first, when its driving
 * filter has one value (or there is none); several values are merged instead (explorer-merge.ts).
 */
export function explorerStatementQuery(storeNum: number, q: ExplorerQuery, limit: number): BuiltQuery {
  const lists = explorerLists(q);
  const drive = explorerDrive(q, lists);
  if (drive !== null && drive.values.length !== 1) throw new RangeError('a filter of several values is read by a merge (explorer-merge.ts)');
  const terms: TermFilter[] = drive !== null && drive.kind !== 'verb' ? [{ kind: drive.kind, value: drive.values[0]!, primaryOnly: false }] : [];
  // An attempt's statements are few; voided statements too: their indexes beat walking a verb's rows.
  const index =
    q.registration !== undefined
      ? 'statements_registration'
      : q.warned
        ? 'statements_warned'
        : q.status === 'voided'
          ? 'statements_voided'
          : drive?.kind === 'verb'
            ? 'statements_verb'
            : 'statements_store';
  const conditions = explorerConditions(storeNum, q, lists, drive);
  if (drive?.kind === 'verb') conditions.unshift(inListCondition('s.verb_id', drive.values));
  return selectStatements({
    columns: EXPLORER_STATEMENT_COLUMNS,
    storeNum,
    terms,
    index,
    conditions,
    bounds: { below: q.beforeSeq },
    descending: true,
    limit,
  });
}

/** The Explorer's statement rows of these seqs, newest first (a merged page, explorer-merge.ts). */
export function explorerRowsBySeq(seqs: readonly number[]): BuiltQuery {
  return {
    sql: `SELECT ${EXPLORER_STATEMENT_COLUMNS} FROM statements AS s WHERE s.seq IN (SELECT value FROM json_each(?)) ORDER BY s.seq DESC`,
    params: [JSON.stringify(seqs)],
  };
}

/** The Explorer's rejection half, filtered on the best-effort columns, newest first. */
export function explorerRejectionQuery(storeNum: number, q: ExplorerQuery, limit: number): BuiltQuery {
  const where = ['r.store_num = ?'];
  const params: SqlValue[] = [storeNum];
  let index = 'rejections_store';
  const lists = explorerLists(q);
  const filters: Array<[values: readonly string[] | undefined, column: string, index: string]> = [
    [lists.verbs, 'verb_id', 'rejections_verb'],
    [lists.activities, 'activity_id', 'rejections_activity'],
    [lists.agents, 'agent', 'rejections_agent'],
  ];
  // The last filter present drives: agent, then activity, then verb. With several values its
  // index is read once per value and the rows sorted: the rejected log is bounded (retention).
  for (const [values, column, filterIndex] of filters) {
    if (values === undefined) continue;
    const condition = inListCondition(`r.${column}`, values);
    where.push(condition.sql);
    params.push(...condition.params);
    index = filterIndex;
  }
  if (q.registration !== undefined) {
    // Rejections keep no registration column: read it from the payload, among the Store's bounded log.
    where.push("lower(json_extract(CASE WHEN json_valid(r.payload) THEN r.payload END, '$.context.registration')) = ?");
    params.push(q.registration);
  }
  if (q.since !== undefined) {
    where.push('r.received_ms >= ?');
    params.push(toMs(q.since));
  }
  if (q.until !== undefined) {
    where.push('r.received_ms <= ?');
    params.push(toMs(q.until));
  }
  pushBounds('r.seq', { below: q.beforeSeq }, where, params);
  params.push(limit);
  return {
    sql: `SELECT ${REJECTION_COLUMNS} FROM rejections AS r INDEXED BY ${index} WHERE ${where.join(' AND ')} ORDER BY r.seq DESC LIMIT ?`,
    params,
  };
}
