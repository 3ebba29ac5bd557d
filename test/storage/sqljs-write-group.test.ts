/**
 * The writes of one turn of the event loop share one SQL transaction (sql.ts beginGroup,
 * durable-database.ts joinWriteGroup): each operation stays all-or-nothing on its own, every one
 * replays after a crash, and an image taken before the turn ends holds them all.
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Sql } from '../../src-server/storage/sqljs/sql';
import { makeStatement } from './rows';
import { closedAfterEach, crashCopy, loadSqlJs, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

describe('sql.js write groups', () => {
  const track = closedAfterEach();

  it('keeps each transaction of a group all-or-nothing on its own, and commits the rest together', async () => {
    const sql = new Sql(new (await loadSqlJs()).Database());
    sql.db.exec('CREATE TABLE t (v INTEGER)');
    sql.beginGroup();
    sql.transaction(() => sql.run('INSERT INTO t VALUES (1)'));
    expect(() =>
      sql.transaction(() => {
        sql.run('INSERT INTO t VALUES (2)');
        throw new Error('refused half-way');
      }),
    ).toThrow('refused half-way');
    sql.transaction(() => sql.run('INSERT INTO t VALUES (3)'));
    // Inside the group, reads see its writes.
    expect(sql.all('SELECT v FROM t ORDER BY v')).toEqual([[1], [3]]);
    sql.endGroup();
    // Committed: a new transaction starts, and a rollback of it keeps the group's rows.
    sql.run('BEGIN');
    sql.run('INSERT INTO t VALUES (4)');
    sql.run('ROLLBACK');
    expect(sql.all('SELECT v FROM t ORDER BY v')).toEqual([[1], [3]]);
    sql.close();
  });

  it('writes the statements of one turn into a snapshot taken before the turn ends, and replays every one', async () => {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    await storage.snapshot();
    const writes = Array.from({ length: 20 }, () => storage.insertStatements(store.id, [makeStatement()]));
    // Let the writes apply (they do within microtasks) but not the end of the turn, which commits the group.
    for (let i = 0; i < 50; i++) await Promise.resolve();
    await Promise.all([storage.snapshot(), ...writes]);
    // The snapshot covers those records: their journal file is gone, so the image alone must hold them.
    const copy = await crashCopy(storage.dataDir);
    for (const name of await readdir(copy)) if (name.startsWith('journal-')) await rm(path.join(copy, name));
    const fromImage = await track(openIn(copy));
    expect((await fromImage.stats(store.id)).statements).toBe(20);
    // And every one replays from the journal after a crash.
    const more = Array.from({ length: 30 }, () => storage.insertStatements(store.id, [makeStatement()]));
    await Promise.all(more);
    const crashed = await track(openIn(await crashCopy(storage.dataDir)));
    expect((await crashed.stats(store.id)).statements).toBe(50);
  });
});
