/**
 * Each Store's counts kept in the snapshot (sqljs/store-counts.ts): read at open instead of
 * counting the rows, only when taken at the image's own journal seq; older data directories, and
 * counts another release left behind, are counted as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeRejection, makeStatement } from './rows';
import { crashCopy, openIn, removeTempDirs, rewriteSnapshot, snapshotSql, tempDir, withStore } from './sqljs-helpers';

afterEach(removeTempDirs);

/** A data directory whose one Store holds `statements` statements, closed: its snapshot keeps the counts. */
async function closedWith(statements: number) {
  const dir = await tempDir();
  const storage = await openIn(dir);
  const store = await withStore(storage);
  await storage.insertStatements(store.id, Array.from({ length: statements }, () => makeStatement()));
  await storage.close();
  return { dir, store };
}

/** The snapshot's kept counts and the journal seqs of the image and of the counts. */
async function keptIn(dataDir: string) {
  const sql = await snapshotSql(dataDir);
  try {
    const meta = new Map(sql.all('SELECT key, value FROM meta').map(([k, v]) => [k as string, v as number]));
    return {
      rows: sql.all('SELECT store_num, statements, rejections FROM store_counts ORDER BY store_num'),
      journalSeq: meta.get('journal_seq'),
      countsSeq: meta.get('counts_journal_seq'),
    };
  } finally {
    sql.close();
  }
}

async function counted(dataDir: string, storeId: string) {
  const storage = await openIn(dataDir);
  try {
    const stats = await storage.stats(storeId);
    return { statements: stats.statements, rejections: stats.rejections };
  } finally {
    await storage.close();
  }
}

describe("each Store's counts kept in the snapshot", () => {
  it('are written with every snapshot, at its journal seq, and read back at open', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const other = await withStore(storage);
    await storage.insertStatements(store.id, [makeStatement(), makeStatement(), makeStatement()]);
    await storage.insertRejections(store.id, [makeRejection({})]);
    await storage.insertStatements(other.id, [makeStatement()]);
    await storage.close();
    const kept = await keptIn(dir);
    expect(kept.countsSeq).toBe(kept.journalSeq);
    expect(kept.rows.map(([, statements, rejections]) => [statements, rejections])).toEqual([
      [3, 1],
      [1, 0],
    ]);
    expect(await counted(dir, store.id)).toEqual({ statements: 3, rejections: 1 });
    expect(await counted(dir, other.id)).toEqual({ statements: 1, rejections: 0 });
  });

  it('are what the open uses: it does not count the rows when they name the snapshot', async () => {
    const { dir, store } = await closedWith(1);
    await rewriteSnapshot(dir, 'UPDATE store_counts SET statements = 777');
    expect((await counted(dir, store.id)).statements).toBe(777);
  });

  it('taken at another journal seq (an image an earlier release wrote) are not trusted: the rows are counted', async () => {
    const { dir, store } = await closedWith(2);
    await rewriteSnapshot(dir, "UPDATE store_counts SET statements = 777; UPDATE meta SET value = value - 1 WHERE key = 'counts_journal_seq'");
    expect((await counted(dir, store.id)).statements).toBe(2);
  });

  it('open a data directory written before them (counted), and the next snapshot keeps them', async () => {
    const { dir, store } = await closedWith(2);
    await rewriteSnapshot(dir, "DROP TABLE store_counts; DELETE FROM meta WHERE key = 'counts_journal_seq'");
    const storage = await openIn(dir);
    try {
      expect((await storage.stats(store.id)).statements).toBe(2);
      await storage.insertStatements(store.id, [makeStatement()]);
    } finally {
      await storage.close();
    }
    const kept = await keptIn(dir);
    expect(kept.countsSeq).toBe(kept.journalSeq);
    expect(kept.rows.map(([, statements]) => statements)).toEqual([3]);
  });

  it('are the snapshot\'s, and the journal replayed over it adds the writes since (a crash)', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    await storage.insertStatements(store.id, [makeStatement(), makeStatement()]);
    await storage.snapshot();
    await storage.insertStatements(store.id, [makeStatement()]);
    await storage.insertRejections(store.id, [makeRejection({})]);
    const copy = await crashCopy(dir);
    await storage.close();
    expect((await keptIn(copy)).rows.map(([, statements, rejections]) => [statements, rejections])).toEqual([[2, 0]]);
    expect(await counted(copy, store.id)).toEqual({ statements: 3, rejections: 1 });
  });

  it('follow a Store emptied or deleted after the snapshot, across a crash and a clean stop', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const emptied = await withStore(storage);
    const deleted = await withStore(storage);
    const kept = await withStore(storage);
    for (const store of [emptied, deleted, kept]) await storage.insertStatements(store.id, [makeStatement(), makeStatement()]);
    await storage.snapshot();
    await storage.emptyStore(emptied.id);
    await storage.deleteStore(deleted.id);
    const copy = await crashCopy(dir);
    await storage.close();
    for (const at of [copy, dir]) {
      expect(await counted(at, emptied.id)).toEqual({ statements: 0, rejections: 0 });
      expect(await counted(at, kept.id)).toEqual({ statements: 2, rejections: 0 });
      const reopened = await openIn(at);
      try {
        expect((await reopened.stats()).statements).toBe(2);
      } finally {
        await reopened.close();
      }
    }
  });
});
