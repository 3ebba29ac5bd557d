/**
 * The Explorer's statement half when the filter that drives it holds several values (a name that
 * matched several learners, verbs or Activities: explorer-query.ts): the newest matching rows
 * across the values' seq-ordered index lists, without sorting everything they hold.
 *
 * It reads window by window, newest first. Each window [lower, upper) is chosen from marks: per
 * value, the seq of its n-th newest entry below `upper` (one index seek each, in one query), where
 * n spreads the batch over the values. `lower` is the mark that leaves at least a batch of entries
 * above it; the window's rows are then read through the same index by value and seq range, checked
 * against the other filters, and sorted (a window holds about a batch). A window that yields too
 * few rows is followed by the next one below it, twice the size. The rows of the values are never
 * all read: "Ada" matching 1,250 learners costs 1,250 seeks and about a page of rows.
 */
import type { SqlValue } from 'sql.js';
import type { ExplorerDrive, ExplorerLists } from '../explorer-query';
import type { ExplorerQuery } from '../storage';
import { explorerConditions } from './queries';
import type { Sql } from './sql';

interface MergeSource {
  /** The values as their lists know them: term ids, or verb ids. */
  ids: SqlValue[];
  /** One row per value of `json_each(?)`: the seq of its entry at OFFSET ? below ? (NULL: none). Binds upper, offset, ids. */
  marks: (upper: number, offset: number, ids: string) => { sql: string; params: SqlValue[] };
  /** The list's rows (alias `s` for the statement) in [lower, upper) of the values `ids`: FROM and WHERE. */
  window: (ids: string, lower: number, upper: number) => { from: string; where: string; seq: string; params: SqlValue[] };
}

function termSource(sql: Sql, storeNum: number, kind: 'agent' | 'activity', values: readonly string[]): MergeSource {
  const ids = sql
    .all('SELECT id FROM terms WHERE store_num = ? AND kind = ? AND value IN (SELECT value FROM json_each(?))', [storeNum, kind, JSON.stringify(values)])
    .map(([id]) => id as number);
  return {
    ids,
    marks: (upper, offset, idsJson) => ({
      sql: 'SELECT (SELECT seq FROM term_postings WHERE term = m.value AND seq < ? ORDER BY seq DESC LIMIT 1 OFFSET ?) FROM json_each(?) AS m',
      params: [upper, offset, idsJson],
    }),
    window: (idsJson, lower, upper) => ({
      // CROSS JOIN fixes the order: each term's postings in the range, then their statements.
      from: 'term_postings AS t CROSS JOIN statements AS s ON s.seq = t.seq',
      where: 't.term IN (SELECT value FROM json_each(?)) AND t.seq >= ? AND t.seq < ?',
      seq: 't.seq',
      params: [idsJson, lower, upper],
    }),
  };
}

function verbSource(storeNum: number, values: readonly string[]): MergeSource {
  return {
    ids: [...values],
    marks: (upper, offset, idsJson) => ({
      sql:
        'SELECT (SELECT seq FROM statements INDEXED BY statements_verb WHERE store_num = ? AND verb_id = m.value AND seq < ? ' +
        'ORDER BY seq DESC LIMIT 1 OFFSET ?) FROM json_each(?) AS m',
      params: [storeNum, upper, offset, idsJson],
    }),
    window: (idsJson, lower, upper) => ({
      from: 'statements AS s INDEXED BY statements_verb',
      where: 's.store_num = ? AND s.verb_id IN (SELECT value FROM json_each(?)) AND s.seq >= ? AND s.seq < ?',
      seq: 's.seq',
      params: [storeNum, idsJson, lower, upper],
    }),
  };
}

/** The seqs of the newest `need` statements matching `q` below `q.beforeSeq`, newest first. */
export function mergedExplorerSeqs(
  sql: Sql,
  storeNum: number,
  q: ExplorerQuery,
  lists: ExplorerLists,
  drive: NonNullable<ExplorerDrive>,
  need: number,
): number[] {
  const source = drive.kind === 'verb' ? verbSource(storeNum, drive.values) : termSource(sql, storeNum, drive.kind, drive.values);
  if (source.ids.length === 0) return [];
  const idsJson = JSON.stringify(source.ids);
  const conditions = explorerConditions(storeNum, q, lists, drive);
  const found: number[] = [];
  let upper = q.beforeSeq ?? Number.MAX_SAFE_INTEGER;
  let batch = need;
  for (;;) {
    // Each value's perValue-th newest entry below `upper`: a value with a mark has perValue entries
    // at or above it. The rank-th highest mark leaves at least a batch of entries above it.
    const perValue = Math.max(1, Math.ceil(batch / source.ids.length));
    const marksQuery = source.marks(upper, perValue - 1, idsJson);
    const marks = sql
      .all(marksQuery.sql, marksQuery.params)
      .map(([seq]) => seq)
      .filter((seq): seq is number => typeof seq === 'number')
      .sort((a, b) => b - a);
    const rank = Math.ceil(batch / perValue);
    // No marks: each value has fewer than perValue entries left, so the rest is a batch at most.
    const lower = marks.length === 0 ? 0 : marks[Math.min(rank, marks.length) - 1]!;
    const window = source.window(idsJson, lower, upper);
    const rows = sql.all(
      `SELECT DISTINCT ${window.seq} FROM ${window.from} WHERE ${[window.where, ...conditions.map((c) => c.sql)].join(' AND ')} ` +
        `ORDER BY ${window.seq} DESC LIMIT ?`,
      [...window.params, ...conditions.flatMap((c) => c.params), need - found.length],
    );
    for (const [seq] of rows) found.push(seq as number);
    if (found.length >= need || lower === 0) return found;
    upper = lower;
    batch *= 2;
  }
}
