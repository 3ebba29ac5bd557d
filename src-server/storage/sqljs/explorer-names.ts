/**
 * The Explorer's names in the embedded database (../explorer-names.ts says what they are): one
 * row per (Store, kind, value) with the name shown and its words in order (`search`), and a word
 * index whose rows carry those words too, so that the words typed find their names by a range of
 * one index, checked as they are read, not by a scan of every name. Written when an `insertStatements` record is applied — from its statements (agents,
 * verbs) and the Activity definitions it carries — so replay writes them again; like the ingestion
 * counts they are derived from the records, not journaled themselves.
 *
 * Both tables are created at open when missing and then filled from what the database holds (the
 * schema version stays 1: nothing older reads them): each agent from the newest statement it is
 * the actor or object of, each verb from its newest statement, each Activity from its definition.
 */
import { activityNameEntry, indexedWord, indexWords, latestNameEntries, prefixEnd, searchPhrase, searchText, statementNameEntries } from '../explorer-names';
import type { NameEntry } from '../explorer-names';
import type { SqlValue } from 'sql.js';
import type { NamedValue, NameQuery, WordsQuery } from '../storage';
import type { Sql } from './sql';
import { STATEMENT_AND_CONTEXT, statementTextAt } from './statement-codec';

const NAME_TABLES = `
CREATE TABLE explorer_names (
  store_num INTEGER NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  name TEXT NOT NULL,
  search TEXT NOT NULL,
  PRIMARY KEY (store_num, kind, value)
) WITHOUT ROWID;
CREATE TABLE explorer_name_words (
  store_num INTEGER NOT NULL,
  kind TEXT NOT NULL,
  word TEXT NOT NULL,
  value TEXT NOT NULL,
  search TEXT NOT NULL,
  PRIMARY KEY (store_num, kind, word, value)
) WITHOUT ROWID;
`;

/**
 * The names the write path has kept, by the text they were read from, so that a statement
 * repeating its actor's name and its verb's display (nearly all of them) writes nothing and reads
 * nothing. Cleared with the rows (deleteStoreRows) and when a failed write makes the caches
 * reload (loadCaches). Bounded: it starts over when full.
 */
export class NameCache {
  private static readonly LIMIT = 200_000;
  private readonly texts = new Map<number, Map<string, string>>();
  private size = 0;

  has(storeNum: number, entry: NameEntry): boolean {
    return this.texts.get(storeNum)?.get(`${entry.kind}\u0000${entry.value}`) === entry.text;
  }

  kept(storeNum: number, entry: NameEntry): void {
    if (this.size >= NameCache.LIMIT) this.clear();
    let byKey = this.texts.get(storeNum);
    if (!byKey) this.texts.set(storeNum, (byKey = new Map()));
    const key = `${entry.kind}\u0000${entry.value}`;
    if (!byKey.has(key)) this.size++;
    byKey.set(key, entry.text);
  }

  clear(): void {
    this.texts.clear();
    this.size = 0;
  }
}

/** Keeps an entry: written only when its name or words changed, its old words removed. */
function keepName(sql: Sql, cache: NameCache, storeNum: number, entry: NameEntry): void {
  if (cache.has(storeNum, entry)) return;
  const search = searchText(entry.text);
  const stored = sql.first('SELECT name, search FROM explorer_names WHERE store_num = ? AND kind = ? AND value = ?', [storeNum, entry.kind, entry.value]);
  if (!stored || stored[0] !== entry.name || stored[1] !== search) {
    for (const word of stored ? indexWords(stored[1] as string) : []) {
      sql.run('DELETE FROM explorer_name_words WHERE store_num = ? AND kind = ? AND word = ? AND value = ?', [storeNum, entry.kind, word, entry.value]);
    }
    sql.run('INSERT OR REPLACE INTO explorer_names (store_num, kind, value, name, search) VALUES (?, ?, ?, ?, ?)', [
      storeNum,
      entry.kind,
      entry.value,
      entry.name,
      search,
    ]);
    for (const word of indexWords(search)) {
      sql.run('INSERT OR REPLACE INTO explorer_name_words (store_num, kind, word, value, search) VALUES (?, ?, ?, ?, ?)', [
        storeNum,
        entry.kind,
        word,
        entry.value,
        search,
      ]);
    }
  }
  cache.kept(storeNum, entry);
}

/** The names of statements applied in this order (applyInsertStatements). */
export function keepStatementNames(sql: Sql, cache: NameCache, storeNum: number, rows: ReadonlyArray<{ statement: Record<string, unknown> }>): void {
  for (const entry of latestNameEntries(rows.map((row) => row.statement))) keepName(sql, cache, storeNum, entry);
}

/** The names of Activity definitions as written (upsertActivities). */
export function keepActivityNames(sql: Sql, cache: NameCache, storeNum: number, rows: ReadonlyArray<{ id: string; definition: Record<string, unknown> }>): void {
  for (const row of rows) {
    const entry = activityNameEntry(row.id, row.definition);
    if (entry) keepName(sql, cache, storeNum, entry);
  }
}

/** Fills the tables from a database written before they existed. */
function fillNames(sql: Sql): void {
  const cache = new NameCache();
  for (const [storeNum] of sql.all('SELECT num FROM stores')) {
    const num = storeNum as number;
    const statementAt = (seq: unknown) => {
      const row = typeof seq === 'number' ? sql.first(`SELECT ${STATEMENT_AND_CONTEXT} FROM statements WHERE seq = ?`, [seq]) : undefined;
      return row ? (JSON.parse(statementTextAt(row, 0)) as Record<string, unknown>) : null;
    };
    // An agent's name: from the newest statement it is the actor or object of (a primary term).
    const agents = sql.all(
      `SELECT t.value, (SELECT p.seq FROM term_postings AS p INDEXED BY term_postings_primary WHERE p.term = t.id AND p.is_primary = 1
         ORDER BY p.seq DESC LIMIT 1) FROM terms AS t WHERE t.store_num = ? AND t.kind = 'agent'`,
      [num],
    );
    for (const [key, seq] of agents) {
      const statement = statementAt(seq);
      const entry = statement && statementNameEntries(statement).find((e) => e.kind === 'agent' && e.value === key);
      if (entry) keepName(sql, cache, num, entry);
    }
    const verbs = sql.all('SELECT DISTINCT verb_id FROM statements INDEXED BY statements_verb WHERE store_num = ?', [num]);
    for (const [verbId] of verbs) {
      const newest = sql.first('SELECT max(seq) FROM statements INDEXED BY statements_verb WHERE store_num = ? AND verb_id = ?', [num, verbId ?? null]);
      const statement = statementAt(newest?.[0]);
      const entry = statement && statementNameEntries(statement).find((e) => e.kind === 'verb');
      if (entry) keepName(sql, cache, num, entry);
    }
    const activities = sql.all('SELECT activity_id, definition FROM activities WHERE store_num = ?', [num]);
    keepActivityNames(sql, cache, num, activities.map(([id, definition]) => ({ id: id as string, definition: JSON.parse(definition as string) as Record<string, unknown> })));
  }
}

/** Created at open when missing, and filled from the statements and definitions already stored. */
export function ensureNameTables(sql: Sql): void {
  if (sql.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'explorer_names'")) return;
  sql.transaction(() => {
    sql.db.exec(NAME_TABLES);
    fillNames(sql);
  });
}

/**
 * The word index rows whose name has the words (alias `w`): a range of the index by one word, the
 * phrase checked on the words the row carries, without reading the name.
 */
function wordsMatch(storeNum: number, kind: string, words: readonly string[]): { where: string; params: SqlValue[] } | null {
  const indexed = indexedWord(words);
  if (indexed === null) return null;
  return {
    where: `w.store_num = ? AND w.kind = ? AND ${indexed.whole ? 'w.word = ?' : 'w.word >= ? AND w.word < ?'} AND instr(w.search, ?) > 0`,
    params: [storeNum, kind, ...(indexed.whole ? [indexed.word] : [indexed.word, prefixEnd(indexed.word)]), searchPhrase(words)],
  };
}

/** Storage.lookupNames: by words, those whose name starts with them first, then by their words; or by the start of the value. */
export function lookupNameRows(sql: Sql, storeNum: number, query: NameQuery): NamedValue[] {
  let rows;
  if ('words' in query) {
    const match = wordsMatch(storeNum, query.kind, query.words);
    if (match === null) return [];
    rows = sql.all(
      `SELECT n.value, n.name FROM (
         SELECT DISTINCT w.value, w.search, instr(w.search, ?) = 1 AS starts FROM explorer_name_words AS w WHERE ${match.where}
          ORDER BY starts DESC, w.search, w.value LIMIT ?
       ) AS m CROSS JOIN explorer_names AS n ON n.store_num = ? AND n.kind = ? AND n.value = m.value
       ORDER BY m.starts DESC, m.search, m.value`,
      [searchPhrase(query.words), ...match.params, query.limit, storeNum, query.kind],
    );
  } else {
    rows = sql.all('SELECT value, name FROM explorer_names WHERE store_num = ? AND kind = ? AND value >= ? AND value < ? ORDER BY value LIMIT ?', [
      storeNum,
      query.kind,
      query.valuePrefix,
      prefixEnd(query.valuePrefix),
      query.limit,
    ]);
  }
  return rows.map(([value, name]) => ({ value: value as string, name: name as string }));
}

/** Storage.matchNames: the values only, as the index yields them. */
export function matchNameRows(sql: Sql, storeNum: number, query: WordsQuery): string[] {
  const match = wordsMatch(storeNum, query.kind, query.words);
  if (match === null) return [];
  return sql.all(`SELECT DISTINCT w.value FROM explorer_name_words AS w WHERE ${match.where} LIMIT ?`, [...match.params, query.limit]).map(([value]) => value as string);
}
