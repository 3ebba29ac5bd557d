/**
 * Each Store's statement and rejection counts, kept in the database image with the journal seq
 * they were taken at, so an open reads a few rows instead of counting every statement (at a
 * million statements the count took a fifth of start-up).
 *
 * Written with `meta` whenever an image is taken (a snapshot, a backup: schema.ts, writeMeta), in
 * the same synchronous step, from the counts every operation keeps in memory (apply-state.ts).
 * Read at open only when they were taken at the journal seq of the image opened: an image written
 * by an earlier release (no table, or a table it left as it was while it wrote newer images) is
 * counted as before. After the open, the in-memory counts are the ones kept up to date; the
 * table is not read again until the next open.
 */
import type { ApplyState } from './apply-state';
import type { Sql } from './sql';

const COUNTS_SEQ_KEY = 'counts_journal_seq';

export function ensureStoreCountsTable(sql: Sql): void {
  sql.db.exec(`
    CREATE TABLE IF NOT EXISTS store_counts (
      store_num INTEGER PRIMARY KEY,
      statements INTEGER NOT NULL,
      rejections INTEGER NOT NULL
    )`);
}

/** Replaces the kept counts with `counts`, taken at `journalSeq`. Call inside a transaction. */
export function writeStoreCounts(sql: Sql, journalSeq: number, counts: ApplyState['counts']): void {
  sql.run('DELETE FROM store_counts');
  for (const [num, { statements, rejections }] of counts) {
    sql.run('INSERT INTO store_counts (store_num, statements, rejections) VALUES (?, ?, ?)', [num, statements, rejections]);
  }
  sql.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [COUNTS_SEQ_KEY, journalSeq]);
}

/**
 * The kept counts of every Store in `storeNums` when they were taken at `journalSeq`, or null
 * (taken at another seq, none kept, a Store missing): then the caller counts the rows.
 */
export function readStoreCounts(sql: Sql, journalSeq: number, storeNums: Iterable<number>): ApplyState['counts'] | null {
  const at = sql.first('SELECT value FROM meta WHERE key = ?', [COUNTS_SEQ_KEY]);
  if (at === undefined || Number(at[0]) !== journalSeq) return null;
  const kept = new Map(sql.all('SELECT store_num, statements, rejections FROM store_counts').map(([num, statements, rejections]) => [num as number, { statements: statements as number, rejections: rejections as number }]));
  const counts: ApplyState['counts'] = new Map();
  for (const num of storeNums) {
    const found = kept.get(num);
    if (!found) return null;
    counts.set(num, found);
  }
  return counts;
}
