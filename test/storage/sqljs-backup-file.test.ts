/**
 * Backup files written by the running storage (the scheduled backups' writer): the up-to-date
 * snapshot copied, checked in a worker thread, renamed; never a half-written file under the name.
 */
import { createRequire } from 'node:module';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidBackupError, restoreDataDir } from '../../src-server/storage/sqljs/backup';
import { verifyBackupFile } from '../../src-server/storage/sqljs/backup-file';
import { makeRejection, makeStatement } from './rows';
import { closedAfterEach, crashCopy, journalFiles, loadSqlJs, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const resolveModule = createRequire(import.meta.url).resolve;
const SQL_JS = { module: resolveModule('sql.js'), wasm: resolveModule('sql.js/dist/sql-wasm.wasm') };

describe('backup files of a running storage', () => {
  const track = closedAfterEach();

  it('writes a checked file holding every write acknowledged before it, and leaves no temporary file', async () => {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    for (let i = 0; i < 5; i++) await storage.insertStatements(store.id, [makeStatement(), makeStatement()]);
    await storage.insertRejections(store.id, [makeRejection()]);
    const dir = await tempDir();
    const file = path.join(dir, 'lore-backup-test.sqlite');

    const summary = await storage.writeBackup(file);
    expect(summary).toMatchObject({ stores: 1, statements: 10, rejections: 1 });
    expect(await readdir(dir)).toEqual(['lore-backup-test.sqlite']);
    const db = new (await loadSqlJs()).Database(await readFile(file));
    try {
      expect(db.exec('SELECT count(*) FROM statements')[0]!.values).toEqual([[10]]);
    } finally {
      db.close();
    }
  });

  it('takes writes while it copies and checks, and the next backup holds them', async () => {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    await storage.insertStatements(store.id, [makeStatement()]);
    const dir = await tempDir();
    const backup = storage.writeBackup(path.join(dir, 'first.sqlite'));
    // Written while the backup is under way: acknowledged, whatever the backup holds.
    const during = await Promise.all(Array.from({ length: 20 }, () => storage.insertStatements(store.id, [makeStatement()])));
    expect(during.every((result) => result.ok)).toBe(true);
    const first = await backup;
    expect(first.statements).toBeGreaterThanOrEqual(1);
    expect((await storage.writeBackup(path.join(dir, 'second.sqlite'))).statements).toBe(21);
  });

  it('removes the temporary file and names the problem when the folder cannot take it', async () => {
    const storage = await track(openIn(await tempDir()));
    await withStore(storage);
    const missing = path.join(await tempDir(), 'no-such-folder', 'backup.sqlite');
    await expect(storage.writeBackup(missing)).rejects.toThrow(/ENOENT/);
  });

  it('refuses a damaged or foreign file, checked in the worker', async () => {
    const dir = await tempDir();
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    await storage.insertStatements(store.id, [makeStatement()]);
    const good = path.join(dir, 'good.sqlite');
    await storage.writeBackup(good);

    const notSqlite = path.join(dir, 'text.sqlite');
    await writeFile(notSqlite, 'not a database at all, '.repeat(10));
    await expect(verifyBackupFile(notSqlite, SQL_JS)).rejects.toThrow(/not an SQLite database/);

    const bytes = await readFile(good);
    // Garbage over every page but the first: the header is whole, the tables are not.
    bytes.fill(0x5a, 4096);
    const damaged = path.join(dir, 'damaged.sqlite');
    await writeFile(damaged, bytes);
    await expect(verifyBackupFile(damaged, SQL_JS)).rejects.toThrow(InvalidBackupError);
  });

  it('keeps the journal written since the newest backup, so the backup and the journal restore everything', async () => {
    const storage = await track(openIn(await tempDir(), { keepJournalSinceBackup: true }));
    const store = await withStore(storage);
    const ids: string[] = [];
    // A snapshot after every write: each covers the journal file before it.
    const write = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const row = makeStatement();
        await storage.insertStatements(store.id, [row]);
        ids.push(row.statementId);
        await storage.snapshot();
      }
    };
    await write(5);
    const dir = await tempDir();
    const backup = path.join(dir, 'backup.sqlite');
    await storage.writeBackup(backup);
    const journalsAtBackup = await journalFiles(storage.dataDir);
    // Snapshots go on after the backup; the journal files they cover stay.
    await write(10);
    const journals = await journalFiles(storage.dataDir);
    expect(journals.length).toBeGreaterThanOrEqual(10);
    expect(journals.filter((file) => journalsAtBackup.includes(file)).length).toBeLessThanOrEqual(1);

    const copy = await crashCopy(storage.dataDir);
    const restored = await restoreDataDir({ dataDir: copy, from: backup, replayJournal: true });
    expect(restored.statements).toBe(5);
    expect(restored.replays?.through).toBeGreaterThan(restored.replays!.from);
    const reopened = await track(openIn(copy));
    const found = await Promise.all(ids.map((id) => reopened.findStatement(store.id, id)));
    expect(found.filter((row) => row === null)).toHaveLength(0);
  });

  it('deletes covered journal files as before when nothing asks to keep them', async () => {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    for (let i = 0; i < 10; i++) {
      await storage.insertStatements(store.id, [makeStatement()]);
      await storage.snapshot();
    }
    expect((await journalFiles(storage.dataDir)).length).toBeLessThanOrEqual(1);
  });
});
