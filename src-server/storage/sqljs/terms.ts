/**
 * Index terms in the embedded database: what GET /statements' agent and activity filters (and the
 * Explorer's) find statements by. Each distinct (Store, kind, value) is a row of `terms` with a
 * small integer id; a statement's terms are rows of `term_postings` (term id, statement seq,
 * primary), one B-tree keyed by integers, so a statement's postings are a few bytes each, not the
 * agent or activity text again (about 75 bytes a row before), and an insert binds numbers only.
 * Primary postings (the plain agent/activity filters) also sit in a partial index, so both kinds of
 * filter walk one index in seq order.
 *
 * Term ids are decided when a journal record is applied, not journaled: records carry the terms
 * as text, and applying the same records in the same order from the same snapshot hands out the
 * same ids. Data directories written with the earlier layout (`statement_terms`, one row per
 * statement and term with the text) are converted at open.
 */
import type { IndexTerm } from '../storage';
import type { Sql } from './sql';

const TERM_TABLES = `
CREATE TABLE IF NOT EXISTS terms (
  id INTEGER PRIMARY KEY,
  store_num INTEGER NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  UNIQUE (store_num, kind, value)
);
CREATE TABLE IF NOT EXISTS term_postings (
  term INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  is_primary INTEGER NOT NULL,
  PRIMARY KEY (term, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS term_postings_primary ON term_postings (term, seq) WHERE is_primary = 1;
`;

/** The earlier layout's table, converted (and dropped) at open. */
const MIGRATE_STATEMENT_TERMS = `
INSERT INTO terms (store_num, kind, value) SELECT DISTINCT store_num, kind, value FROM statement_terms ORDER BY store_num, kind, value;
INSERT INTO term_postings (term, seq, is_primary)
  SELECT terms.id, t.seq, t.is_primary FROM statement_terms AS t
  JOIN terms ON terms.store_num = t.store_num AND terms.kind = t.kind AND terms.value = t.value;
DROP TABLE statement_terms;
`;

/** Created at open when missing; a database with the earlier `statement_terms` is converted. */
export function ensureTermTables(sql: Sql): void {
  const hasOldLayout = sql.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'statement_terms'") !== undefined;
  sql.transaction(() => {
    sql.db.exec(TERM_TABLES);
    if (hasOldLayout) sql.db.exec(MIGRATE_STATEMENT_TERMS);
  });
}

/** The SQL expression for a term's id (NULL when the Store has no such term): binds store, kind, value. */
export const TERM_ID_SQL = '(SELECT id FROM terms WHERE store_num = ? AND kind = ? AND value = ?)';

/**
 * The term ids the write path has used, so a statement's terms are found without a query each.
 * Cleared whenever terms are deleted (deleteStoreRows) and when a failed write makes the caches
 * reload (loadCaches). Bounded: it starts over when full.
 */
export class TermIds {
  private static readonly LIMIT = 200_000;
  /**
   * Store number → kind → value → id. Nested rather than one map keyed by the three joined: the
   * value strings come straight from the statement, and a joined key would be a new string to
   * build and hash for every term of every statement written.
   */
  private readonly ids = new Map<number, Map<IndexTerm['kind'], Map<string, number>>>();
  private size = 0;

  /** The term's id, creating the term when the Store has none yet. */
  idFor(sql: Sql, storeNum: number, kind: IndexTerm['kind'], value: string): number {
    const known = this.valuesOf(storeNum, kind).get(value);
    if (known !== undefined) return known;
    // Most terms not cached are new: insert first, and look the id up only for a stored one. Not
    // with RETURNING: SQLite runs it as a trigger, and a statement with a trigger copies each page
    // it changes into a statement journal first (a third of the insert's cost).
    const inserted = sql.runCounted('INSERT INTO terms (store_num, kind, value) VALUES (?, ?, ?) ON CONFLICT (store_num, kind, value) DO NOTHING', [storeNum, kind, value]);
    const row = inserted
      ? sql.first('SELECT last_insert_rowid()')!
      : sql.first('SELECT id FROM terms WHERE store_num = ? AND kind = ? AND value = ?', [storeNum, kind, value])!;
    const id = row[0] as number;
    if (this.size >= TermIds.LIMIT) this.clear();
    this.valuesOf(storeNum, kind).set(value, id);
    this.size++;
    return id;
  }

  clear(): void {
    this.ids.clear();
    this.size = 0;
  }

  private valuesOf(storeNum: number, kind: IndexTerm['kind']): Map<string, number> {
    let byKind = this.ids.get(storeNum);
    if (!byKind) this.ids.set(storeNum, (byKind = new Map()));
    let byValue = byKind.get(kind);
    if (!byValue) byKind.set(kind, (byValue = new Map()));
    return byValue;
  }
}

/**
 * Postings go in by multi-row INSERTs of up to POSTINGS_PER_INSERT rows: one call into SQLite, not
 * one per term. OR IGNORE because a multi-row INSERT that could abort half-way has SQLite copy
 * every page it changes into a statement journal first, to undo its own rows; one that cannot
 * abort skips that (a third of a statement's postings cost). No row is ever ignored: a
 * statement's terms are distinct (dedupeTerms) and its seq is new, so (term, seq) never repeats.
 */
const POSTINGS_PER_INSERT = 16;
const POSTING_INSERT_SQL = Array.from(
  { length: POSTINGS_PER_INSERT + 1 },
  (_, n) => `INSERT OR IGNORE INTO term_postings (term, seq, is_primary) VALUES ${Array(n).fill('(?, ?, ?)').join(', ')}`,
);

/** A statement's terms (one per kind and value). */
export function insertPostings(sql: Sql, ids: TermIds, storeNum: number, seq: number, terms: IndexTerm[]): void {
  for (let start = 0; start < terms.length; start += POSTINGS_PER_INSERT) {
    const chunk = terms.slice(start, start + POSTINGS_PER_INSERT);
    const params: number[] = [];
    for (const term of chunk) params.push(ids.idFor(sql, storeNum, term.kind, term.value), seq, term.primary ? 1 : 0);
    sql.run(POSTING_INSERT_SQL[chunk.length]!, params);
  }
}

/** Deletes a Store's terms and postings (deleteStoreRows). */
export function deleteStoreTerms(sql: Sql, ids: TermIds, storeNum: number): void {
  sql.run('DELETE FROM term_postings WHERE term IN (SELECT id FROM terms WHERE store_num = ?)', [storeNum]);
  sql.run('DELETE FROM terms WHERE store_num = ?', [storeNum]);
  ids.clear();
}
