/**
 * sql.js specifics of the Explorer's search by name: the names of a data directory written before
 * they were kept are rebuilt at open, and the merge of several values reads indexes, never the
 * whole Store.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { searchExplorerRows } from '../../src-server/storage/sqljs/explorer';
import type { Sql } from '../../src-server/storage/sqljs/sql';
import { namedStatementLookups, namedStatements } from './explorer-names-contract';
import { openIn, removeTempDirs, rewriteSnapshot, schemaDatabase, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

describe('sql.js names for the Explorer', () => {
  it('rebuilds the names of a data directory written before they were kept', async () => {
    const dir = await tempDir();
    let storage = await openIn(dir);
    const store = await withStore(storage);
    await storage.insertStatements(store.id, namedStatements());
    const expected = await namedStatementLookups(storage, store.id);
    expect(expected.map((names) => names.length)).toEqual([1, 1, 1, 1]);
    await storage.close();

    // The snapshot as an older release wrote it: without the names.
    await rewriteSnapshot(dir, 'DROP TABLE explorer_names; DROP TABLE explorer_name_words;');

    storage = await openIn(dir);
    expect(await namedStatementLookups(storage, store.id)).toEqual(expected);
    await storage.close();
  });

  it('merges several values through their indexes: no query of it scans a table', async () => {
    const sql = await schemaDatabase();
    sql.run("INSERT INTO stores (num, id, slug, name, environment, created_at, updated_at) VALUES (1, 's', 's', 's', 'test', '', '')");
    for (let seq = 1; seq <= 20; seq++) {
      sql.run(
        `INSERT INTO statements (seq, store_num, statement_id, statement, signature, stored, stored_ms, key_id, verb_id)
         VALUES (?, 1, ?, '{}', '', '2024-05-01T10:00:00.000Z', 0, 'k', ?)`,
        [seq, `id-${seq}`, seq % 2 ? 'v1' : 'v2'],
      );
    }
    sql.run("INSERT INTO terms (id, store_num, kind, value) VALUES (1, 1, 'agent', 'a'), (2, 1, 'agent', 'b'), (3, 1, 'activity', 'x')");
    for (let seq = 1; seq <= 20; seq++) sql.run('INSERT INTO term_postings (term, seq, is_primary) VALUES (?, ?, 1), (3, ?, 1)', [1 + (seq % 2), seq, seq]);
    const seen: Array<{ text: string; params: unknown[] }> = [];
    const recording = new Proxy(sql, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'all' && name !== 'first') return typeof value === 'function' ? value.bind(target) : value;
        return (text: string, params: unknown[] = []) => {
          seen.push({ text, params });
          return (value as (t: string, p: unknown[]) => unknown).call(target, text, params);
        };
      },
    }) as Sql;
    const queries = [
      { agent: ['a', 'b'], limit: 3 },
      { agent: ['a', 'b'], verbId: 'v1', status: 'accepted' as const, limit: 3 },
      { verbId: ['v1', 'v2'], limit: 3 },
      { verbId: ['v1', 'v2'], activityId: 'x', limit: 3 },
      { activityId: 'x', agent: ['a', 'b'], limit: 3 },
    ];
    for (const query of queries) {
      const page = searchExplorerRows(recording, 1, { ...query, beforeSeq: 19 });
      expect(page.records.length).toBeGreaterThan(0);
    }
    expect(seen.length).toBeGreaterThan(queries.length * 2);
    for (const { text, params } of seen) {
      const plan = sql.all(`EXPLAIN QUERY PLAN ${text}`, params as never).map((row) => String(row[3]));
      // A SCAN of json_each (the values bound) is fine: it is the list of values, not a table.
      expect(plan.filter((step) => /^SCAN/.test(step) && !/json_each|\bm\b/.test(step)), `${text}\n${plan.join('\n')}`).toEqual([]);
    }
    sql.close();
  });
});
