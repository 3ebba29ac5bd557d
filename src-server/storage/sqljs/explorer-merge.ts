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

/** A value of the list (a term id, a verb id) with its mark: the seq of its n-th newest entry below the window's top. */
type Marked = [id: SqlValue, mark: number | null];

interface MergeSource {
  /** The values' marks, the first time: terms are found by their text in the same pass. */
  first: (upper: number, offset: number) => Marked[];
  /** The marks of values already found. */
  marks: (ids: readonly SqlValue[], upper: number, offset: number) => Marked[];
  /**
   * The list's rows (alias `s` for the statement, joined only when `rows`: the other filters read
   * it) of the values `ids` in [lower, upper): FROM and WHERE.
   */
  window: (ids: readonly SqlValue[], lower: number, upper: number, rows: boolean) => { from: string; where: string; seq: string; params: SqlValue[] };
}

const marked = (rows: SqlValue[][]): Marked[] => rows.map(([id, mark]) => [id!, typeof mark === 'number' ? mark : null]);

function termSource(sql: Sql, storeNum: number, kind: 'agent' | 'activity', values: readonly string[]): MergeSource {
  const nth = (term: string) => `(SELECT seq FROM term_postings WHERE term = ${term} AND seq < ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`;
  return {
    first: (upper, offset) =>
      marked(
        sql.all(`SELECT t.id, ${nth('t.id')} FROM terms AS t WHERE t.store_num = ? AND t.kind = ? AND t.value IN (SELECT value FROM json_each(?))`, [
          upper,
          offset,
          storeNum,
          kind,
          JSON.stringify(values),
        ]),
      ),
    marks: (ids, upper, offset) => marked(sql.all(`SELECT m.value, ${nth('m.value')} FROM json_each(?) AS m`, [upper, offset, JSON.stringify(ids)])),
    window: (ids, lower, upper, rows) => ({
      // CROSS JOIN fixes the order: each term's postings in the range, then their statements.
      // Without other filters the postings say it all: a statement row looked up for each of
      // them cost a name search at 300,000 statements about a third of its time.
      from: rows ? 'term_postings AS t CROSS JOIN statements AS s ON s.seq = t.seq' : 'term_postings AS t',
      where: 't.term IN (SELECT value FROM json_each(?)) AND t.seq >= ? AND t.seq < ?',
      seq: 't.seq',
      params: [JSON.stringify(ids), lower, upper],
    }),
  };
}

function verbSource(sql: Sql, storeNum: number, values: readonly string[]): MergeSource {
  const marks = (ids: readonly SqlValue[], upper: number, offset: number) =>
    marked(
      sql.all(
        'SELECT m.value, (SELECT seq FROM statements INDEXED BY statements_verb WHERE store_num = ? AND verb_id = m.value AND seq < ? ' +
          'ORDER BY seq DESC LIMIT 1 OFFSET ?) FROM json_each(?) AS m',
        [storeNum, upper, offset, JSON.stringify(ids)],
      ),
    );
  return {
    first: (upper, offset) => marks(values, upper, offset),
    marks,
    window: (ids, lower, upper) => ({
      from: 'statements AS s INDEXED BY statements_verb',
      where: 's.store_num = ? AND s.verb_id IN (SELECT value FROM json_each(?)) AND s.seq >= ? AND s.seq < ?',
      seq: 's.seq',
      params: [storeNum, JSON.stringify(ids), lower, upper],
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
  const source = drive.kind === 'verb' ? verbSource(sql, storeNum, drive.values) : termSource(sql, storeNum, drive.kind, drive.values);
  const conditions = explorerConditions(storeNum, q, lists, drive);
  const found: number[] = [];
  let upper = q.beforeSeq ?? Number.MAX_SAFE_INTEGER;
  let batch = need;
  // Each value's perValue-th newest entry below `upper`: a value with a mark has perValue entries
  // at or above it. The rank-th highest mark leaves at least a batch of entries above it.
  let perValue = Math.max(1, Math.ceil(batch / drive.values.length));
  let values = source.first(upper, perValue - 1);
  for (;;) {
    const marks = values.flatMap(([, mark]) => (mark === null ? [] : [mark])).sort((a, b) => b - a);
    const rank = Math.ceil(batch / perValue);
    // No marks: each value has fewer than perValue entries left, so the rest is a batch at most.
    const lower = marks.length === 0 ? 0 : marks[Math.min(rank, marks.length) - 1]!;
    // With one entry a value, a value's newest entry below `upper` says whether it has any in the window.
    const inWindow = perValue === 1 ? values.filter(([, mark]) => mark !== null && mark >= lower) : values;
    if (inWindow.length > 0) {
      const window = source.window(
        inWindow.map(([id]) => id),
        lower,
        upper,
        conditions.length > 0,
      );
      const rows = sql.all(
        `SELECT DISTINCT ${window.seq} FROM ${window.from} WHERE ${[window.where, ...conditions.map((c) => c.sql)].join(' AND ')} ` +
          `ORDER BY ${window.seq} DESC LIMIT ?`,
        [...window.params, ...conditions.flatMap((c) => c.params), need - found.length],
      );
      for (const [seq] of rows) found.push(seq as number);
    }
    if (found.length >= need || lower === 0) return found;
    upper = lower;
    batch *= 2;
    // A value with no entry below the old `upper` has none below the new one: it is left out.
    const left = perValue === 1 ? values.filter(([, mark]) => mark !== null) : values;
    if (left.length === 0) return found;
    perValue = Math.max(1, Math.ceil(batch / left.length));
    values = source.marks(
      left.map(([id]) => id),
      upper,
      perValue - 1,
    );
  }
}
