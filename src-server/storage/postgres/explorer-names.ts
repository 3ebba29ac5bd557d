/**
 * The Explorer's names in PostgreSQL (../explorer-names.ts says what they are): `explorer_names`,
 * one row per (Store, kind, value) with the name shown and its words in order (`search`), and
 * `explorer_name_words`, the word index the words typed are looked up in (its rows carry the words
 * of their name, so the phrase is checked in the index). Written in the
 * transaction of the statements and definitions they come from; filled for existing data by the
 * migration that created them (migrations.ts). Texts compare in "C" order (bytes), as on sql.js,
 * so both order suggestions alike and a prefix is an index range.
 *
 * Nearly every statement repeats the names already kept: they are compared first without a lock,
 * and only the changed ones are locked and written, so concurrent writers of the same verb never
 * wait on its row.
 */
import { activityNameEntry, indexedWord, indexWords, latestNameEntries, prefixEnd, searchPhrase, searchText, statementNameEntries } from '../explorer-names';
import type { NameEntry } from '../explorer-names';
import type { NamedValue, NameQuery, StatementRow, WordsQuery } from '../storage';
import type { PostgresDatabase, Tx } from './database';
import type { BuiltQuery } from './statement-queries';

interface Kept {
  kind: string;
  value: string;
  name: string;
  search: string;
}

const keyOf = (e: { kind: string; value: string }) => `${e.kind}\u0000${e.value}`;

async function keptRows(tx: Tx, storeNum: number, entries: ReadonlyArray<{ kind: string; value: string }>, lock: boolean): Promise<Map<string, Kept>> {
  const { rows } = await tx.query<Kept>(
    `SELECT kind, value, name, search FROM explorer_names
      WHERE store_num = $1 AND (kind, value) IN (SELECT * FROM unnest($2::text[], $3::text[]))
      ${lock ? 'ORDER BY kind, value FOR UPDATE' : ''}`,
    [storeNum, entries.map((e) => e.kind), entries.map((e) => e.value)],
  );
  return new Map(rows.map((row) => [keyOf(row), row]));
}

/** Keeps the entries whose name or words changed; the caller runs it in a transaction. */
async function keepNames(tx: Tx, storeNum: number, entries: readonly NameEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const wanted = entries.map((entry) => ({ ...entry, search: searchText(entry.text) }));
  const kept = await keptRows(tx, storeNum, wanted, false);
  const changed = wanted
    .filter((e) => {
      const row = kept.get(keyOf(e));
      return !row || row.name !== e.name || row.search !== e.search;
    })
    // One order for every writer: two transactions lock the same rows in the same order.
    .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  if (changed.length === 0) return;
  const columns = [changed.map((e) => e.kind), changed.map((e) => e.value), changed.map((e) => e.name), changed.map((e) => e.search)];
  await tx.query(
    `INSERT INTO explorer_names (store_num, kind, value, name, search)
     SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) ON CONFLICT (store_num, kind, value) DO NOTHING`,
    [storeNum, ...columns],
  );
  // Locked now (this transaction's own inserts included): the old words are those of the row as it is.
  const locked = await keptRows(tx, storeNum, changed, true);
  const stale = changed.flatMap((e) => {
    const row = locked.get(keyOf(e));
    return row && row.search !== e.search ? indexWords(row.search).map((word) => [e.kind, word, e.value]) : [];
  });
  if (stale.length > 0) {
    await tx.query(
      `DELETE FROM explorer_name_words WHERE store_num = $1 AND (kind, word, value) IN (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]))`,
      [storeNum, stale.map((w) => w[0]), stale.map((w) => w[1]), stale.map((w) => w[2])],
    );
  }
  await tx.query(
    `UPDATE explorer_names AS n SET name = c.name, search = c.search
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS c(kind, value, name, search)
      WHERE n.store_num = $1 AND n.kind = c.kind AND n.value = c.value AND (n.name <> c.name OR n.search <> c.search)`,
    [storeNum, ...columns],
  );
  const words = changed.flatMap((e) => indexWords(e.search).map((word) => [e.kind, word, e.value, e.search]));
  if (words.length === 0) return;
  await tx.query(
    `INSERT INTO explorer_name_words (store_num, kind, word, value, search) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT DO NOTHING`,
    [storeNum, words.map((w) => w[0]), words.map((w) => w[1]), words.map((w) => w[2]), words.map((w) => w[3])],
  );
}

/** The agents' and verbs' names of statements inserted in this order. */
export async function keepStatementNames(tx: Tx, storeNum: number, rows: readonly StatementRow[]): Promise<void> {
  await keepNames(tx, storeNum, latestNameEntries(rows.map((row) => row.statement)));
}

/** The names of Activity definitions as written. */
export async function keepActivityNames(tx: Tx, storeNum: number, definitions: ReadonlyArray<{ id: string; definition: Record<string, unknown> }>): Promise<void> {
  await keepNames(
    tx,
    storeNum,
    definitions.flatMap(({ id, definition }) => activityNameEntry(id, definition) ?? []),
  );
}

/**
 * Fills the tables from what a database holds (the migration that creates them): each agent from
 * the newest statement it is the actor or object of, each verb from its newest statement, each
 * Activity from its definition.
 */
export async function fillExplorerNames(tx: Tx): Promise<void> {
  const { rows: stores } = await tx.query<{ num: number }>('SELECT num FROM stores ORDER BY num');
  for (const { num } of stores) {
    const entries: NameEntry[] = [];
    const { rows: agents } = await tx.query<{ value: string; statement: string }>(
      `SELECT t.value, s.statement FROM terms AS t
         CROSS JOIN LATERAL (SELECT p.seq FROM term_postings AS p WHERE p.store_num = t.store_num AND p.term = t.id AND p.is_primary
                               ORDER BY p.seq DESC LIMIT 1) AS newest
         JOIN statements AS s ON s.store_num = t.store_num AND s.seq = newest.seq
        WHERE t.store_num = $1 AND t.kind = 'agent'`,
      [num],
    );
    for (const { value, statement } of agents) {
      const entry = statementNameEntries(JSON.parse(statement) as Record<string, unknown>).find((e) => e.kind === 'agent' && e.value === value);
      if (entry) entries.push(entry);
    }
    const { rows: verbs } = await tx.query<{ statement: string }>(
      'SELECT DISTINCT ON (verb_id) statement FROM statements WHERE store_num = $1 ORDER BY verb_id, seq DESC',
      [num],
    );
    for (const { statement } of verbs) {
      const entry = statementNameEntries(JSON.parse(statement) as Record<string, unknown>).find((e) => e.kind === 'verb');
      if (entry) entries.push(entry);
    }
    await keepNames(tx, num, entries);
    const { rows: activities } = await tx.query<{ activity_id: string; definition: string }>(
      'SELECT activity_id, definition FROM activities WHERE store_num = $1',
      [num],
    );
    await keepActivityNames(
      tx,
      num,
      activities.map((a) => ({ id: a.activity_id, definition: JSON.parse(a.definition) as Record<string, unknown> })),
    );
  }
}

/**
 * The word index rows whose name has the words (alias `w`): a range of the index by one word, the
 * phrase checked on the words the row carries, without reading the name. Placeholders from $1.
 */
function wordsMatch(storeNum: number, kind: string, words: readonly string[]): { where: string; values: unknown[] } | null {
  const indexed = indexedWord(words);
  if (indexed === null) return null;
  return {
    where: `w.store_num = $1 AND w.kind = $2 AND strpos(w.search, $3) > 0 AND ${indexed.whole ? 'w.word = $4' : 'w.word >= $4 AND w.word < $5'}`,
    values: [storeNum, kind, searchPhrase(words), indexed.word, ...(indexed.whole ? [] : [prefixEnd(indexed.word)])],
  };
}

/**
 * Storage.lookupNames' query: by words, those whose name starts with them first, then by their
 * words; or by the start of the value. Null when the words give nothing to look up.
 */
export function lookupNamesQuery(storeNum: number, query: NameQuery): BuiltQuery | null {
  if ('words' in query) {
    const match = wordsMatch(storeNum, query.kind, query.words);
    if (match === null) return null;
    const limit = `$${match.values.length + 1}`;
    return {
      text: `SELECT n.value, n.name FROM (
         SELECT DISTINCT w.value, w.search, strpos(w.search, $3) = 1 AS starts FROM explorer_name_words AS w WHERE ${match.where}
          ORDER BY starts DESC, w.search, w.value LIMIT ${limit}
       ) AS m JOIN explorer_names AS n ON n.store_num = $1 AND n.kind = $2 AND n.value = m.value
       ORDER BY m.starts DESC, m.search, m.value`,
      values: [...match.values, query.limit],
    };
  }
  return {
    text: 'SELECT value, name FROM explorer_names WHERE store_num = $1 AND kind = $2 AND value >= $3 AND value < $4 ORDER BY value LIMIT $5',
    values: [storeNum, query.kind, query.valuePrefix, prefixEnd(query.valuePrefix), query.limit],
  };
}

/** Storage.matchNames' query: the values only, as the index yields them. Null as for lookupNamesQuery. */
export function matchNamesQuery(storeNum: number, query: WordsQuery): BuiltQuery | null {
  const match = wordsMatch(storeNum, query.kind, query.words);
  if (match === null) return null;
  return {
    text: `SELECT DISTINCT w.value FROM explorer_name_words AS w WHERE ${match.where} LIMIT $${match.values.length + 1}`,
    values: [...match.values, query.limit],
  };
}

// Prepared: the Explorer looks names up as a user types, and each search by a name or word starts
// here. Five texts in all (a whole word or a prefix, for each query; a value's start), each a walk
// of a primary key (postgres-plans.test.ts checks the plan made for any values too).

export async function lookupNameRows(db: PostgresDatabase, storeNum: number, query: NameQuery): Promise<NamedValue[]> {
  const q = lookupNamesQuery(storeNum, query);
  return q === null ? [] : db.prepared<NamedValue>(q.text, q.values);
}

export async function matchNameRows(db: PostgresDatabase, storeNum: number, query: WordsQuery): Promise<string[]> {
  const q = matchNamesQuery(storeNum, query);
  return q === null ? [] : (await db.prepared<{ value: string }>(q.text, q.values)).map((row) => row.value);
}
