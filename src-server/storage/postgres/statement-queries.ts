/**
 * SQL for the read paths with many filter combinations: xAPI statement queries (with the
 * statements that match through their StatementRef target) and the Statement Explorer. Each
 * query is shaped so that one index whose last column is `seq` drives it, in seq order, and the
 * other filters are checked on the rows it yields: a term filter walks `term_postings`; otherwise
 * the registration, warned, voided, verb or Store index. test/storage/postgres-plans.test.ts
 * checks the plans.
 */
import { explorerDrive, explorerLists } from '../explorer-query';
import type { ExplorerDrive, ExplorerLists } from '../explorer-query';
import type { ExplorerQuery, StatementQuery } from '../storage';

/** Column list of every statement row these queries return. */
export const STATEMENT_COLUMNS = 's.seq, s.statement_id, s.statement, s.stored, s.voided, s.key_id';
const EXPLORER_STATEMENT_COLUMNS = `${STATEMENT_COLUMNS}, s.received, s.lrs_added, s.warnings`;
const REJECTION_COLUMNS = 'r.seq, r.statement_id, r.payload, r.received_at, r.key_id, r.error';

/** How many StatementRef hops a filter follows (as on sql.js); cycles are possible. */
const MAX_TARGET_DEPTH = 16;

export interface BuiltQuery {
  text: string;
  values: unknown[];
}

/** Collects values and hands out their placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

interface TermFilter {
  kind: 'agent' | 'activity';
  value: string;
  primaryOnly: boolean;
}

function statementTermFilters(q: StatementQuery): TermFilter[] {
  const terms: TermFilter[] = [];
  if (q.agent !== undefined) terms.push({ kind: 'agent', value: q.agent, primaryOnly: !q.relatedAgents });
  if (q.activityId !== undefined) terms.push({ kind: 'activity', value: q.activityId, primaryOnly: !q.relatedActivities });
  return terms;
}

function termIdSql(p: Params, storeNum: number, term: TermFilter): string {
  return `(SELECT id FROM terms WHERE store_num = ${p.add(storeNum)} AND kind = ${p.add(term.kind)} AND value = ${p.add(term.value)})`;
}

function hasTerm(p: Params, alias: string, seq: string, storeNum: number, term: TermFilter): string {
  return (
    `EXISTS (SELECT 1 FROM term_postings AS ${alias} WHERE ${alias}.store_num = ${p.add(storeNum)} AND ` +
    `${alias}.term = ${termIdSql(p, storeNum, term)} AND ${alias}.seq = ${seq}${term.primaryOnly ? ` AND ${alias}.is_primary` : ''})`
  );
}

interface SeqBounds {
  above?: number;
  below?: number;
  atMost?: number;
}

function pushBounds(p: Params, seq: string, bounds: SeqBounds, where: string[]): void {
  if (bounds.above !== undefined) where.push(`${seq} > ${p.add(bounds.above)}`);
  if (bounds.below !== undefined) where.push(`${seq} < ${p.add(bounds.below)}`);
  if (bounds.atMost !== undefined) where.push(`${seq} <= ${p.add(bounds.atMost)}`);
}

/**
 * Rows of `statements` (alias s) of one Store: driven by the first term filter's postings when
 * there is one, otherwise by the Store's rows in seq order (the index chosen by the planner from
 * the conditions: `conditions` are written so that the intended partial index matches).
 */
function selectStatements(
  p: Params,
  columns: string,
  storeNum: number,
  terms: TermFilter[],
  conditions: (p: Params) => string[],
  bounds: SeqBounds,
  descending: boolean,
  limit: number,
): string {
  const [drive, ...others] = terms;
  const where: string[] = [];
  let from: string;
  let seq: string;
  if (drive) {
    from = 'term_postings AS t JOIN statements AS s ON s.store_num = t.store_num AND s.seq = t.seq';
    seq = 't.seq';
    where.push(`t.store_num = ${p.add(storeNum)}`, `t.term = ${termIdSql(p, storeNum, drive)}`);
    if (drive.primaryOnly) where.push('t.is_primary');
  } else {
    from = 'statements AS s';
    seq = 's.seq';
    where.push(`s.store_num = ${p.add(storeNum)}`);
  }
  others.forEach((term, i) => where.push(hasTerm(p, `o${i}`, 's.seq', storeNum, term)));
  where.push(...conditions(p));
  pushBounds(p, seq, bounds, where);
  return `SELECT ${columns} FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${seq} ${descending ? 'DESC' : 'ASC'} LIMIT ${p.add(limit)}`;
}

function storedTimeConditions(p: Params, q: { since?: string; until?: string }, sinceInclusive: boolean): string[] {
  const out: string[] = [];
  if (q.since !== undefined) out.push(`s.stored_ms ${sinceInclusive ? '>=' : '>'} ${p.add(Date.parse(q.since))}`);
  if (q.until !== undefined) out.push(`s.stored_ms <= ${p.add(Date.parse(q.until))}`);
  return out;
}

/** xAPI GET /statements: voided statements hidden; `limit` rows (the caller asks one more than a page). */
export function statementQuery(storeNum: number, q: StatementQuery, limit: number, p = new Params()): BuiltQuery {
  const descending = !q.ascending;
  const bounds: SeqBounds = { atMost: q.maxSeq };
  if (q.afterSeq !== undefined) {
    if (descending) bounds.below = q.afterSeq;
    else bounds.above = q.afterSeq;
  }
  const conditions = (p: Params) => {
    const out = ['NOT s.voided'];
    if (q.verbId !== undefined) out.push(`s.verb_id = ${p.add(q.verbId)}`);
    if (q.registration !== undefined) out.push(`s.registration = ${p.add(q.registration)}`);
    out.push(...storedTimeConditions(p, q, false));
    if (q.keyId !== undefined) out.push(`s.key_id = ${p.add(q.keyId)}`);
    return out;
  };
  const text = selectStatements(p, STATEMENT_COLUMNS, storeNum, statementTermFilters(q), conditions, bounds, descending, limit);
  return { text, values: p.values };
}

/** Whether a query has a filter that targeting statements can meet through their target. */
export function hasTargetableFilter(q: StatementQuery): boolean {
  return q.agent !== undefined || q.verbId !== undefined || q.activityId !== undefined || q.registration !== undefined;
}

/**
 * The targeting half of GET /statements (xAPI §2.1.3 "Filter Conditions for StatementRefs"; see
 * the sql.js module statement-targets.ts for the rules): statements with a StatementRef object,
 * not voided, in the time and seq bounds, whose target chain reaches a statement matching the
 * non-time filters. Walks the Store's targeting statements (a partial index) in seq order and
 * resolves each chain link by the (store, statement id) index.
 */
export function targetingStatementQuery(storeNum: number, q: StatementQuery, limit: number, p = new Params()): BuiltQuery {
  const store = p.add(storeNum);
  const where = [`s.store_num = ${store}`, 's.target_statement_id IS NOT NULL', 'NOT s.voided', ...storedTimeConditions(p, q, false)];
  if (q.keyId !== undefined) where.push(`s.key_id = ${p.add(q.keyId)}`);
  const descending = !q.ascending;
  if (q.afterSeq !== undefined) where.push(`s.seq ${descending ? '<' : '>'} ${p.add(q.afterSeq)}`);
  if (q.maxSeq !== undefined) where.push(`s.seq <= ${p.add(q.maxSeq)}`);

  const match: string[] = [];
  if (q.maxSeq !== undefined) match.push(`m.seq <= ${p.add(q.maxSeq)}`);
  if (q.verbId !== undefined) match.push(`m.verb_id = ${p.add(q.verbId)}`);
  if (q.registration !== undefined) match.push(`m.registration = ${p.add(q.registration)}`);
  statementTermFilters(q).forEach((term, i) => match.push(hasTerm(p, `mt${i}`, 'm.seq', storeNum, term)));

  const chain =
    'WITH RECURSIVE chain(id, depth) AS (' +
    'SELECT s.target_statement_id, 1 UNION ' +
    'SELECT t2.target_statement_id, chain.depth + 1 FROM chain ' +
    `JOIN statements AS t2 ON t2.store_num = ${store} AND t2.statement_id = chain.id ` +
    `WHERE t2.target_statement_id IS NOT NULL AND chain.depth < ${MAX_TARGET_DEPTH}) ` +
    `SELECT 1 FROM chain JOIN statements AS m ON m.store_num = ${store} AND m.statement_id = chain.id` +
    (match.length > 0 ? ` WHERE ${match.join(' AND ')}` : '');
  where.push(`EXISTS (${chain})`);
  const text = `SELECT ${STATEMENT_COLUMNS} FROM statements AS s WHERE ${where.join(' AND ')} ORDER BY s.seq ${descending ? 'DESC' : 'ASC'} LIMIT ${p.add(limit)}`;
  return { text, values: p.values };
}

/**
 * A page of GET /statements as one query (one round trip): the direct half, and with a filter a
 * targeting statement can meet, the targeting half beside it (each walks its own index for
 * `limit` rows at most, as when they were sent apart); the caller merges them in seq order.
 */
export function statementPageQuery(storeNum: number, q: StatementQuery, limit: number): BuiltQuery {
  const p = new Params();
  const direct = statementQuery(storeNum, q, limit, p).text;
  if (!hasTargetableFilter(q)) return { text: direct, values: p.values };
  const targeting = targetingStatementQuery(storeNum, q, limit, p).text;
  return { text: `(${direct}) UNION ALL (${targeting})`, values: p.values };
}

/** `column` is the value, or one of the values. */
function inList(p: Params, column: string, values: readonly string[]): string {
  return values.length === 1 ? `${column} = ${p.add(values[0])}` : `${column} = ANY(${p.add(values)}::text[])`;
}

/** The ids of the Store's terms of `kind` with one of `values`. */
function termIdsSql(p: Params, storeNum: number, kind: TermFilter['kind'], values: readonly string[]): string {
  return `SELECT id FROM terms WHERE store_num = ${p.add(storeNum)} AND kind = ${p.add(kind)} AND value = ANY(${p.add(values)}::text[])`;
}

/** The statement at `seq` has a term (of any role) of `kind` with one of `values`. */
function hasAnyTerm(p: Params, alias: string, seq: string, storeNum: number, kind: TermFilter['kind'], values: readonly string[]): string {
  if (values.length === 1) return hasTerm(p, alias, seq, storeNum, { kind, value: values[0]!, primaryOnly: false });
  return (
    `EXISTS (SELECT 1 FROM term_postings AS ${alias} WHERE ${alias}.store_num = ${p.add(storeNum)} AND ` +
    `${alias}.term IN (${termIdsSql(p, storeNum, kind, values)}) AND ${alias}.seq = ${seq})`
  );
}

/**
 * What the Explorer checks on each statement row besides the filter that drives the walk
 * (explorer-query.ts): status, the other filters, warnings, the time range.
 */
function explorerConditions(p: Params, storeNum: number, q: ExplorerQuery, lists: ExplorerLists, drive: ExplorerDrive): string[] {
  const out: string[] = [];
  if (q.status === 'accepted') out.push('NOT s.voided');
  if (q.status === 'voided') out.push('s.voided');
  if (lists.verbs !== undefined && drive?.kind !== 'verb') out.push(inList(p, 's.verb_id', lists.verbs));
  if (lists.agents !== undefined && drive?.kind !== 'agent') out.push(hasAnyTerm(p, 'oa', 's.seq', storeNum, 'agent', lists.agents));
  if (lists.activities !== undefined && drive?.kind !== 'activity') out.push(hasAnyTerm(p, 'ox', 's.seq', storeNum, 'activity', lists.activities));
  if (q.registration !== undefined) out.push(`s.registration = ${p.add(q.registration)}`);
  if (q.warned) out.push('s.warnings IS NOT NULL');
  out.push(...storedTimeConditions(p, q, true));
  return out;
}

/**
 * The Explorer's statement half when its driving filter holds several values (explorer-query.ts):
 * per value, its newest matching rows through its own index (a LATERAL walk of `limit` at most),
 * then the newest `limit` of those, then their rows. The sort is of a page per value, never of
 * every row the values hold.
 */
function mergedExplorerQuery(storeNum: number, q: ExplorerQuery, lists: ExplorerLists, drive: NonNullable<ExplorerDrive>, limit: number): BuiltQuery {
  const p = new Params();
  const store = p.add(storeNum);
  const n = p.add(limit);
  const where = explorerConditions(p, storeNum, q, lists, drive);
  let values: string;
  let walk: string;
  if (drive.kind === 'verb') {
    values = `unnest(${p.add(drive.values)}::text[]) AS v(value)`;
    walk = `SELECT s.seq FROM statements AS s WHERE s.store_num = ${store} AND s.verb_id = v.value`;
  } else {
    values = `(${termIdsSql(p, storeNum, drive.kind, drive.values)}) AS v(value)`;
    walk =
      'SELECT t.seq FROM term_postings AS t JOIN statements AS s ON s.store_num = t.store_num AND s.seq = t.seq ' +
      `WHERE t.store_num = ${store} AND t.term = v.value`;
  }
  if (q.beforeSeq !== undefined) where.push(`s.seq < ${p.add(q.beforeSeq)}`);
  const seq = drive.kind === 'verb' ? 's.seq' : 't.seq';
  const text =
    `SELECT ${EXPLORER_STATEMENT_COLUMNS} FROM (` +
    `SELECT DISTINCT m.seq FROM ${values} CROSS JOIN LATERAL (` +
    `${walk}${where.map((c) => ` AND ${c}`).join('')} ORDER BY ${seq} DESC LIMIT ${n}) AS m ORDER BY m.seq DESC LIMIT ${n}` +
    `) AS page JOIN statements AS s ON s.store_num = ${store} AND s.seq = page.seq ORDER BY s.seq DESC`;
  return { text, values: p.values };
}

/** The Explorer's statement half: accepted and voided statements, newest first. */
export function explorerStatementQuery(storeNum: number, q: ExplorerQuery, limit: number): BuiltQuery {
  const lists = explorerLists(q);
  const drive = explorerDrive(q, lists);
  if (drive !== null && drive.values.length > 1) return mergedExplorerQuery(storeNum, q, lists, drive, limit);
  const p = new Params();
  const terms: TermFilter[] = drive !== null && drive.kind !== 'verb' ? [{ kind: drive.kind, value: drive.values[0]!, primaryOnly: false }] : [];
  const conditions = (p: Params) => [
    ...(drive?.kind === 'verb' ? [inList(p, 's.verb_id', drive.values)] : []),
    ...explorerConditions(p, storeNum, q, lists, drive),
  ];
  const text = selectStatements(p, EXPLORER_STATEMENT_COLUMNS, storeNum, terms, conditions, { below: q.beforeSeq }, true, limit);
  return { text, values: p.values };
}

/** The Explorer's rejection half, filtered on the best-effort columns, newest first. */
export function explorerRejectionQuery(storeNum: number, q: ExplorerQuery, limit: number): BuiltQuery {
  const p = new Params();
  const where = [`r.store_num = ${p.add(storeNum)}`];
  const lists = explorerLists(q);
  if (lists.verbs !== undefined) where.push(inList(p, 'r.verb_id', lists.verbs));
  if (lists.activities !== undefined) where.push(inList(p, 'r.activity_id', lists.activities));
  if (lists.agents !== undefined) where.push(inList(p, 'r.agent', lists.agents));
  if (q.registration !== undefined) where.push(`r.registration = ${p.add(q.registration)}`);
  if (q.since !== undefined) where.push(`r.received_ms >= ${p.add(Date.parse(q.since))}`);
  if (q.until !== undefined) where.push(`r.received_ms <= ${p.add(Date.parse(q.until))}`);
  if (q.beforeSeq !== undefined) where.push(`r.seq < ${p.add(q.beforeSeq)}`);
  const text = `SELECT ${REJECTION_COLUMNS} FROM rejections AS r WHERE ${where.join(' AND ')} ORDER BY r.seq DESC LIMIT ${p.add(limit)}`;
  return { text, values: p.values };
}
