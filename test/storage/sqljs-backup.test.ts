import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError } from '../../src-server/storage/sqljs/lock';
import { InvalidBackupError, restoreDataDir, sqlJsForBackups, verifyBackup } from '../../src-server/storage/sqljs/backup';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { makeStatement } from './rows';
import { instrumentedFs, ioError, loadSqlJs, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

const opened: SqljsStorage[] = [];

afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close().catch(() => {});
  await removeTempDirs();
});

async function open(dir?: string, options: Parameters<typeof openIn>[1] = {}): Promise<SqljsStorage> {
  const storage = await openIn(dir ?? (await tempDir()), options);
  opened.push(storage);
  return storage;
}

async function statementIds(image: Uint8Array): Promise<string[]> {
  const db = new (await loadSqlJs()).Database(image);
  try {
    return (db.exec('SELECT statement_id FROM statements ORDER BY seq')[0]?.values ?? []).map(([id]) => id as string);
  } finally {
    db.close();
  }
}

describe('backups of the sql.js storage', () => {
  it('holds every write resolved before the backup, with writes in flight around it', async () => {
    const storage = await open();
    const store = await withStore(storage);
    const done = [makeStatement(), makeStatement()];
    await storage.insertStatements(store.id, done);
    const inFlight = storage.insertStatements(store.id, [makeStatement()]);
    const image = await storage.backup();
    const after = storage.insertStatements(store.id, [makeStatement()]);
    await Promise.all([inFlight, after]);

    const ids = await statementIds(image);
    expect(ids.slice(0, 2)).toEqual(done.map((row) => row.statementId));
    const summary = verifyBackup(await sqlJsForBackups(), image);
    expect(summary).toMatchObject({ stores: 1, schemaVersion: 1 });
  });

  it('is refused, not handed out, when the writes it holds do not reach the disk', async () => {
    const { fs, control } = instrumentedFs();
    const storage = await open(undefined, { fs });
    const store = await withStore(storage);
    const release = control.holdSyncs();
    const write = storage.insertStatements(store.id, [makeStatement()]);
    const backup = storage.backup();
    control.syncFailure = ioError('EIO');
    release();
    await expect(write).rejects.toThrow(/journal/);
    await expect(backup).rejects.toThrow(/journal/);
    control.syncFailure = null;
  });

  it('verifies a file: an SQLite database of the Lore schema this release reads', async () => {
    const SQL = await sqlJsForBackups();
    expect(() => verifyBackup(SQL, new TextEncoder().encode('hello, not a database'.repeat(10)))).toThrow(/not an SQLite database/);
    const other = new SQL.Database();
    other.exec('CREATE TABLE t (x)');
    expect(() => verifyBackup(SQL, other.export())).toThrow(/not a Lore one: it has no meta, stores/);
    const storage = await open();
    const newer = new SQL.Database(await storage.backup());
    newer.exec("UPDATE meta SET value = 99 WHERE key = 'schema_version'");
    expect(() => verifyBackup(SQL, newer.export())).toThrow(InvalidBackupError);
    expect(() => verifyBackup(SQL, newer.export())).toThrow(/schema version 99/);
  });

  it('restores into a directory no service holds, keeping the previous data as .before-restore', async () => {
    const source = await open();
    const store = await withStore(source);
    const rows = [makeStatement(), makeStatement()];
    await source.insertStatements(store.id, rows);
    const file = path.join(await tempDir(), 'backup.sqlite');
    await writeFile(file, await source.backup());

    const target = await tempDir();
    const previous = await open(target);
    await withStore(previous);
    await expect(restoreDataDir({ dataDir: target, from: file })).rejects.toThrow(DataDirLockedError);
    await previous.close();

    const result = await restoreDataDir({ dataDir: target, from: file });
    expect(result.statements).toBe(2);
    expect(result.keptAs).toContain('lore.sqlite.before-restore');
    const second = await restoreDataDir({ dataDir: target, from: file });
    expect(second.keptAs).toContain('lore.sqlite.before-restore.2');
    expect((await readdir(target)).filter((name) => name.includes('before-restore')).sort()).toEqual(
      expect.arrayContaining(['lore.sqlite.before-restore', 'lore.sqlite.before-restore.2']),
    );

    const restored = await open(target);
    expect(await restored.findStatement(store.id, rows[1]!.statementId)).not.toBeNull();
    expect((await restored.listStores()).map((s) => s.id)).toEqual([store.id]);
    // The restored directory takes writes and keeps them across a crash-free reopen.
    await restored.insertStatements(store.id, [makeStatement()]);
    expect((await restored.stats(store.id)).statements).toBe(3);
  });

  it('refuses to restore a file that is not a backup, and leaves the directory as it was', async () => {
    const target = await tempDir();
    const file = path.join(target, 'notes.txt');
    await writeFile(file, 'not a database');
    await expect(restoreDataDir({ dataDir: target, from: file })).rejects.toThrow(/not an SQLite database/);
    await expect(restoreDataDir({ dataDir: target, from: path.join(target, 'missing.sqlite') })).rejects.toThrow(/no such file/);
    expect(existsSync(path.join(target, 'lore.sqlite'))).toBe(false);
    expect(existsSync(path.join(target, 'lore.lock'))).toBe(false);
  });
});
