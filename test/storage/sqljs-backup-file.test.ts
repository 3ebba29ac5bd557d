/**
 * Backup files written by the running storage (the scheduled backups' writer): the up-to-date
 * snapshot copied, checked in a worker thread, renamed; never a half-written file under the name.
 */
import { createRequire } from 'node:module';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidBackupError } from '../../src-server/storage/sqljs/backup';
import { verifyBackupFile } from '../../src-server/storage/sqljs/backup-file';
import { makeRejection, makeStatement } from './rows';
import { closedAfterEach, loadSqlJs, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

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
});
