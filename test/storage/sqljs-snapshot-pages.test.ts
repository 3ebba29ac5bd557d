/**
 * Snapshots after the first: the changed pages only (file-changes.ts, snapshot-pages.ts). The
 * snapshot must hold exactly what the live database holds, and every crash point must reopen to
 * the acknowledged writes.
 */
import { execFileSync } from 'node:child_process';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from 'sql.js';
import { afterAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_PAGES_FILE, SNAPSHOT_PAGES_TEMP_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import { FileChanges, PAGE_BYTES } from '../../src-server/storage/sqljs/file-changes';
import type { PageSource } from '../../src-server/storage/sqljs/file-changes';
import { decodeSnapshotPages, encodeSnapshotPagesHeader } from '../../src-server/storage/sqljs/snapshot-pages';
import { sqlJsFileName } from '../../src-server/storage/sqljs/sql';
import { SNAPSHOT_FILE } from '../../src-server/storage/sqljs/sqljs-storage';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { DocumentKey } from '../../src-server/storage/storage';
import { at, makeApiKey, makeRejection, makeStatement } from './rows';
import { closedAfterEach, crashCopy, loadSqlJs, openIn, removeTempDirs, snapshotWritesFail, tempDir, twoSnapshotsLogged, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const track = closedAfterEach();

/** Every table's rows, sorted: two databases with equal dumps hold the same data. */
async function dump(image: Uint8Array): Promise<Record<string, string[]>> {
  const db = new (await loadSqlJs()).Database(image);
  try {
    expect(db.exec('PRAGMA integrity_check')[0]!.values).toEqual([['ok']]);
    const tables = db.exec("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")[0]!.values.map(([name]) => name as string);
    const rows = (table: string) => (db.exec(`SELECT * FROM "${table}"`)[0]?.values ?? []).map((row) => JSON.stringify(row)).sort();
    return Object.fromEntries(tables.map((table) => [table, rows(table)]));
  } finally {
    db.close();
  }
}

/** All the pages of `source`, one after another. */
function pagesOf(source: PageSource): Uint8Array {
  const data = new Uint8Array(source.pages.length * PAGE_BYTES);
  source.copy(0, source.pages.length, data);
  return data;
}

/** A new sql.js database of 500 rows whose file is followed from its creation. */
async function withTrackedDatabase(test: (db: Database, changes: FileChanges) => Promise<void>): Promise<void> {
  const db = new (await loadSqlJs()).Database();
  const changes = new FileChanges(sqlJsFileName(db));
  try {
    db.run('CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)');
    db.run('BEGIN');
    for (let n = 0; n < 500; n++) db.run('INSERT INTO t VALUES (?, ?)', [n, 'x'.repeat(500)]);
    db.run('COMMIT');
    await test(db, changes);
  } finally {
    changes.release();
    changes.dispose();
    db.close();
  }
}

const documentKey = (id: string): DocumentKey => ({ kind: 'state', activityId: 'http://example.com/a', agent: 'mbox:mailto:ada@example.com', registration: null, id });

/** A mix of every kind of write: inserts, updates, deletions, documents, a Store emptied. */
async function writeSome(storage: SqljsStorage, round: number): Promise<void> {
  const store = await withStore(storage);
  const other = await withStore(storage);
  await storage.insertStatements(store.id, Array.from({ length: 40 }, (_, i) => makeStatement({ storedAt: round * 100 + i })));
  await storage.insertStatements(other.id, Array.from({ length: 10 }, () => makeStatement()));
  await storage.insertRejections(store.id, [makeRejection()]);
  const key = makeApiKey(store.id);
  await storage.insertApiKey(key);
  await storage.updateApiKey(key.id, { revokedAt: at(round) });
  const content = { contentType: 'application/json', content: Buffer.from(JSON.stringify({ round })), etag: `etag-${round}`, updated: at(round) };
  await storage.upsertDocument(store.id, documentKey(`doc-${round}`), content, null);
  await storage.upsertDocument(store.id, documentKey('doc-deleted'), content, null);
  await storage.deleteDocument(store.id, documentKey('doc-deleted'));
  await storage.emptyStore(other.id);
}


describe('snapshots of the changed pages', () => {
  it('write only the pages changed since the last snapshot, and the snapshot holds what the database holds', async () => {
    const messages: string[] = [];
    const storage = await track(openIn(await tempDir(), { log: (m) => messages.push(m) }));
    const store = await withStore(storage);
    for (let i = 0; i < 20; i++) await storage.insertStatements(store.id, Array.from({ length: 100 }, () => makeStatement()));
    await storage.snapshot();
    expect(messages.at(-1)).toMatch(/^snapshot written: \d+ bytes/);
    for (let round = 1; round <= 3; round++) {
      await writeSome(storage, round);
      await storage.snapshot();
      const [, pages, fileBytes] = /^snapshot written: (\d+) changed pages \(\d+ bytes\) of (\d+)/.exec(messages.at(-1)!)!;
      // A few Stores' rows among 2,000 statements: a small part of the file.
      expect(Number(pages)).toBeGreaterThan(0);
      expect(Number(pages) * PAGE_BYTES).toBeLessThan(Number(fileBytes) / 4);
      const snapshot = await readFile(path.join(storage.dataDir, SNAPSHOT_FILE));
      expect(snapshot.length).toBe(Number(fileBytes));
      expect(await dump(snapshot)).toEqual(await dump(await storage.backup()));
    }
    expect(await readdir(storage.dataDir)).not.toContain(SNAPSHOT_PAGES_FILE);
    await storage.close();
    const reopened = await track(openIn(storage.dataDir));
    expect((await reopened.stats(store.id)).statements).toBe(2000);
  });

  it('follow a database that shrinks and grows again (a Store deleted, then new rows)', async () => {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    for (let i = 0; i < 10; i++) await storage.insertStatements(store.id, Array.from({ length: 100 }, () => makeStatement()));
    await storage.snapshot();
    await storage.deleteStore(store.id);
    await storage.snapshot();
    const next = await withStore(storage);
    await storage.insertStatements(next.id, [makeStatement()]);
    await storage.snapshot();
    expect(await dump(await readFile(path.join(storage.dataDir, SNAPSHOT_FILE)))).toEqual(await dump(await storage.backup()));
  });

  it('reopen after a crash while the pages were written into the snapshot: the pages file finishes it', async () => {
    const { fs, control } = snapshotWritesFail(1);
    const messages: string[] = [];
    const storage = await track(openIn(await tempDir(), { fs, log: (m) => messages.push(m) }));
    const store = await withStore(storage);
    await storage.insertStatements(store.id, Array.from({ length: 300 }, () => makeStatement()));
    await storage.snapshot();
    await writeSome(storage, 1);
    control.failing = true;
    await expect(storage.snapshot()).rejects.toThrow(/EIO/);
    // What a crash here leaves: the snapshot partly written, the complete pages file beside it.
    const crashed = await crashCopy(storage.dataDir);
    expect(await readdir(crashed)).toContain(SNAPSHOT_PAGES_FILE);
    const recoveredLog: string[] = [];
    const recovered = await track(openIn(crashed, { log: (m) => recoveredLog.push(m) }));
    expect(recoveredLog.join('\n')).toMatch(/wrote the \d+ pages of an interrupted snapshot into lore\.sqlite/);
    expect(await readdir(crashed)).not.toContain(SNAPSHOT_PAGES_FILE);
    expect(await dump(await recovered.backup())).toEqual(await dump(await storage.backup()));

    // The live storage's next snapshot writes those pages again, with the changes made since.
    control.failing = false;
    await writeSome(storage, 2);
    await storage.snapshot();
    expect(await readdir(storage.dataDir)).not.toContain(SNAPSHOT_PAGES_FILE);
    expect(await dump(await readFile(path.join(storage.dataDir, SNAPSHOT_FILE)))).toEqual(await dump(await storage.backup()));
  });

  it('reopen after a crash while the pages file was written: the snapshot and the journal are as before', async () => {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    await storage.insertStatements(store.id, Array.from({ length: 50 }, () => makeStatement()));
    await storage.snapshot();
    await storage.insertStatements(store.id, Array.from({ length: 7 }, () => makeStatement()));
    const crashed = await crashCopy(storage.dataDir);
    await writeFile(path.join(crashed, SNAPSHOT_PAGES_TEMP_FILE), Buffer.from('LOREPAGE half a file'));
    const recovered = await track(openIn(crashed));
    expect((await recovered.stats(store.id)).statements).toBe(57);
    expect(await readdir(crashed)).not.toContain(SNAPSHOT_PAGES_TEMP_FILE);
  });

  it('tell damage elsewhere in lore.sqlite when a crash cut the writing-in of a pages file short: its sums come first', async () => {
    const { fs, control } = snapshotWritesFail(0);
    const storage = await track(openIn(await tempDir(), { fs }));
    const store = await withStore(storage);
    await storage.insertStatements(store.id, Array.from({ length: 200 }, () => makeStatement()));
    await storage.snapshot();
    await storage.insertStatements(store.id, Array.from({ length: 20 }, () => makeStatement()));
    // The pages file is complete; writing its pages into lore.sqlite fails at the first write.
    control.failing = true;
    await expect(storage.snapshot()).rejects.toThrow();
    const crashed = await crashCopy(storage.dataDir);
    const { pages } = decodeSnapshotPages(await readFile(path.join(crashed, SNAPSHOT_PAGES_FILE)));

    // A page the pages file does not hold, damaged: the sums of the snapshot being finished name it.
    const damagedDir = await crashCopy(crashed);
    const image = await readFile(path.join(damagedDir, SNAPSHOT_FILE));
    const untouched = [...Array(Math.floor(image.length / PAGE_BYTES)).keys()].filter((page) => page > 1 && !pages.includes(page));
    const victim = untouched[Math.floor(untouched.length / 2)]!;
    image.fill(0x55, victim * PAGE_BYTES, (victim + 1) * PAGE_BYTES);
    await writeFile(path.join(damagedDir, SNAPSHOT_FILE), image);
    await expect(openIn(damagedDir)).rejects.toThrow(new RegExp(`lore\\.sqlite is damaged: page ${victim} \\(`));

    // Undamaged, the same crash opens with every statement.
    const finished = await track(openIn(crashed));
    expect((await finished.stats(store.id)).statements).toBe(220);
  });

  it('refuse to open when the pages file is damaged, naming it', async () => {
    const storage = await track(openIn(await tempDir()));
    await withStore(storage);
    await storage.snapshot();
    const crashed = await crashCopy(storage.dataDir);
    await writeFile(path.join(crashed, SNAPSHOT_PAGES_FILE), Buffer.from('LOREPAGE'));
    await expect(openIn(crashed)).rejects.toThrow(/lore\.sqlite\.pages is damaged/);
  });

  it('refuse to open when a pages file is there without the snapshot it changes', async () => {
    const storage = await track(openIn(await tempDir()));
    await withStore(storage);
    await storage.snapshot();
    const crashed = await crashCopy(storage.dataDir);
    const pages = new Uint32Array([0]);
    await writeFile(path.join(crashed, SNAPSHOT_PAGES_FILE), Buffer.concat([encodeSnapshotPagesHeader(pages, PAGE_BYTES), new Uint8Array(PAGE_BYTES)]));
    await rm(path.join(crashed, SNAPSHOT_FILE));
    await expect(openIn(crashed)).rejects.toThrow(/lore\.sqlite\.pages is there but lore\.sqlite is not/);
    expect(await readdir(crashed)).not.toContain(SNAPSHOT_FILE);
  });

  it('a pages file round-trips: page numbers, contents and the file size', () => {
    const changes = new FileChanges('no-such-file');
    try {
      const contents = new Uint8Array(5 * PAGE_BYTES).map((_, i) => i % 251);
      changes.noteWrite(3 * PAGE_BYTES + 10, 20, contents);
      changes.noteWrite(0, 2 * PAGE_BYTES, contents);
      changes.noteWrite(PAGE_BYTES, 5, contents);
      const taken = changes.take(4 * PAGE_BYTES + 100);
      expect([...taken.pages]).toEqual([0, 1, 3]);
      const data = pagesOf(taken);
      expect(data.subarray(2 * PAGE_BYTES, 3 * PAGE_BYTES)).toEqual(contents.subarray(3 * PAGE_BYTES, 4 * PAGE_BYTES));
      expect(changes.changedPages).toBe(0);
      changes.markAgain([4, 0]);
      expect(changes.changedPages).toBe(2);
      const decoded = decodeSnapshotPages(Buffer.concat([encodeSnapshotPagesHeader(taken.pages, taken.fileBytes), data]));
      expect(decoded.pages).toEqual(taken.pages);
      expect(pagesOf(decoded)).toEqual(data);
      expect(decoded.fileBytes).toBe(4 * PAGE_BYTES + 100);
    } finally {
      changes.release();
      changes.dispose();
    }
  });

  it("follow every write sql.js makes to the database file (the install's hook)", () =>
    withTrackedDatabase(async (db, changes) => {
      const image = db.export();
      const taken = changes.take(image.length);
      // A new database: every page of it was written since, and the pages are the database.
      expect(taken.pages.length).toBe(image.length / PAGE_BYTES);
      expect(await dump(pagesOf(taken))).toEqual(await dump(image));
    }));

  it('read frozen pages as they were when taken, whatever is written to them after', () =>
    withTrackedDatabase(async (db, changes) => {
      const before = db.export();
      const taken = changes.take(before.length);
      // Every row rewritten and more added (the file grows) while the snapshot would be writing.
      db.run("UPDATE t SET body = 'y' || body");
      for (let n = 500; n < 700; n++) db.run('INSERT INTO t VALUES (?, ?)', [n, 'z'.repeat(500)]);
      expect(changes.changedPages).toBeGreaterThan(taken.pages.length);
      expect(await dump(pagesOf(taken))).toEqual(await dump(before));
    }));

  it('refuse to run on a sql.js without the hook: snapshots would miss changes', () => {
    // A fresh process whose first sql.js is one without Lore's hooks (sql.js keeps its first configuration).
    const script = `
      import initSqlJs from 'sql.js';
      import { loadSqlJs } from './src-server/storage/sqljs/load-database.ts';
      import { createRequire } from 'node:module';
      const wasm = createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
      await initSqlJs({ locateFile: () => wasm });
      await loadSqlJs(wasm).then(() => console.log('loaded'), (err) => console.log(err.message));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    expect(out).toMatch(/sql\.js runs without Lore's file hooks/);
  });
});

describe('the first snapshot of a data directory', () => {
  it('is the whole image; a later one is the changed pages', async () => {
    const messages = await twoSnapshotsLogged(track);
    expect(messages.filter((m) => m.startsWith('snapshot written')).map((m) => /changed pages/.test(m))).toEqual([false, true]);
  });
});
