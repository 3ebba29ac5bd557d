/**
 * Temp data directories, simulated crashes, the contract's sql.js variants, databases as older
 * releases left them, and an instrumented file layer for the sql.js tests.
 */
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { afterEach } from 'vitest';
import { nodeStorageFs } from '../../src-server/storage/sqljs/fs';
import { loadSqlJs as loadStorageSqlJs } from '../../src-server/storage/sqljs/load-database';
import type { StorageFs } from '../../src-server/storage/sqljs/fs';
import { ensureSchema } from '../../src-server/storage/sqljs/schema';
import { Sql } from '../../src-server/storage/sqljs/sql';
import { STATEMENT_AND_CONTEXT, receivedText, statementTextAt } from '../../src-server/storage/sqljs/statement-codec';
import { SNAPSHOT_FILE, openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { SNAPSHOT_SUMS_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import type { SqljsStorage, SqljsStorageOptions } from '../../src-server/storage/sqljs/sqljs-storage';
import type { Storage, StoreRecord } from '../../src-server/storage/storage';
import { makeStore } from './rows';
import type { ContractSubject } from './storage-contract';

const dirs: string[] = [];

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lore-storage-'));
  dirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * What a crash (kill -9) would leave right now: a copy of the data directory's files without the
 * lock. Every write that resolved was fsynced, so the copy holds it; the copy is taken in one
 * synchronous-looking step between two awaits of the storage, i.e. at an arbitrary point of its
 * background work (a snapshot half written, a journal half rotated).
 */
export async function crashCopy(dataDir: string): Promise<string> {
  const copy = await tempDir();
  await cp(dataDir, copy, { recursive: true, filter: (src) => path.basename(src) !== 'lore.lock' });
  return copy;
}

export async function journalFiles(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir))
    .filter((name) => /^journal-\d+\.log$/.test(name))
    .sort()
    .map((name) => path.join(dataDir, name));
}

export async function openIn(dataDir: string, options: Partial<SqljsStorageOptions> = {}): Promise<SqljsStorage> {
  return openSqljsStorage({ dataDir, ...options });
}

/**
 * Call in a describe block: returns `track`, which hands back the storage it is given once open
 * and closes it after the test (a failed test leaves no directory locked).
 */
export function closedAfterEach(): (storage: Promise<SqljsStorage>) => Promise<SqljsStorage> {
  const opened: SqljsStorage[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => {});
  });
  return async (storage) => {
    const s = await storage;
    opened.push(s);
    return s;
  };
}

/**
 * What the storage logs over its first two snapshots of a new data directory, each after a new
 * Store: the first writes the whole image, the second the pages changed since.
 */
export async function twoSnapshotsLogged(track: ReturnType<typeof closedAfterEach>): Promise<string[]> {
  const messages: string[] = [];
  const storage = await track(openIn(await tempDir(), { log: (m) => messages.push(m) }));
  await withStore(storage);
  await storage.snapshot();
  await withStore(storage);
  await storage.snapshot();
  return messages;
}

/** Lets the event loop turn `n` times: every chance for background work to finish if it would. */
export async function eventLoopTurns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A new Store, inserted. */
export async function withStore(storage: Storage): Promise<StoreRecord> {
  const store = makeStore();
  await storage.insertStore(store);
  return store;
}

/** "Reopen" closes the storage and opens the same directory: close() writes a snapshot. */
async function closedAndReopened(): Promise<ContractSubject> {
  const dir = await tempDir();
  const { fs, control } = instrumentedFs();
  let current = await openIn(dir, { fs });
  return {
    storage: current,
    reopen: async () => {
      await current.close();
      current = await openIn(dir, { fs });
      return current;
    },
    cleanup: () => current.close(),
    holdDurability: () => control.holdSyncs(),
  };
}

/**
 * "Reopen" is a crash: a copy of the files as they are, without close() and its snapshot. flush()
 * only journals the coalesced last-used times (which a crash may lose by design) and lets a
 * snapshot under way finish, so the copy is one a crash could leave.
 */
async function crashedAndReopened(openOptions: Partial<SqljsStorageOptions> = {}): Promise<ContractSubject> {
  const { fs, control } = instrumentedFs();
  const options = { ...openOptions, fs };
  let current = await openIn(await tempDir(), options);
  const open: SqljsStorage[] = [current];
  return {
    storage: current,
    reopen: async () => {
      await current.flush();
      current = await openIn(await crashCopy(current.dataDir), options);
      open.push(current);
      return current;
    },
    cleanup: async () => {
      for (const s of open) await s.close();
    },
    holdDurability: () => control.holdSyncs(),
  };
}

/** The variants of the sql.js storage the Storage contract runs on. */
export const SQLJS_CONTRACT_SUBJECTS: Array<[name: string, open: () => Promise<ContractSubject>]> = [
  ['sql.js', closedAndReopened],
  ['sql.js reopened after a crash (journal replay only)', () => crashedAndReopened()],
  // The first snapshot writes the whole image, every later one its changed pages (snapshot-pages.ts).
  ['sql.js with a snapshot after nearly every write', () => crashedAndReopened({ snapshotThresholdBytes: 1 })],
];

/**
 * sql.js as the storage loads it, with its file hooks: sql.js instantiates once per process, with
 * the first configuration it is given, so tests load it the same way.
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  return loadStorageSqlJs(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
}

/** An in-memory database with the schema and no data: for query plans and table lists. */
export async function schemaDatabase(): Promise<Sql> {
  const sql = new Sql(new (await loadSqlJs()).Database());
  ensureSchema(sql);
  return sql;
}

/** Runs `sqlText` on the snapshot of a closed data directory: to make it what an older release wrote. */
export async function rewriteSnapshot(dataDir: string, sqlText: string): Promise<void> {
  const file = path.join(dataDir, SNAPSHOT_FILE);
  const db = new (await loadSqlJs()).Database(await readFile(file));
  try {
    db.exec(sqlText);
    await writeFile(file, db.export());
    // An older release kept no page checksums (snapshot-sums.ts); these would name the file damaged.
    await rm(path.join(dataDir, SNAPSHOT_SUMS_FILE), { force: true });
  } finally {
    db.close();
  }
}

/** The snapshot of `dataDir` as a database of its own (the caller closes it). */
export async function snapshotSql(dataDir: string): Promise<Sql> {
  return new Sql(new (await loadSqlJs()).Database(await readFile(path.join(dataDir, SNAPSHOT_FILE))));
}

/**
 * `received` (its JSON text, decoded from the compact form: statement-codec.ts) and `lrs_added` of
 * every statement in the snapshot of `dataDir`, in seq order.
 */
export async function receivedColumnsOf(dataDir: string): Promise<Array<[string | null, unknown]>> {
  const sql = await snapshotSql(dataDir);
  try {
    return sql
      .all(`SELECT received, lrs_added, ${STATEMENT_AND_CONTEXT} FROM statements ORDER BY seq`)
      .map((row) => [receivedText(row[0], statementTextAt(row, 2)), row[1]]);
  } finally {
    sql.close();
  }
}

/** A file layer over the real one that counts fdatasyncs, can hold them, and can fail like a sick disk. */
export function instrumentedFs() {
  const control = {
    datasyncs: 0,
    /** When set, every write, truncate and fdatasync throws it. */
    failure: null as NodeJS.ErrnoException | null,
    /** When set, fdatasync throws it after the write went through (the bytes may be in the file). */
    syncFailure: null as NodeJS.ErrnoException | null,
    /** When set, fdatasync waits for it. */
    gate: null as Promise<void> | null,
    /** Makes every fdatasync wait until the returned function is called. */
    holdSyncs(): () => void {
      let release!: () => void;
      control.gate = new Promise((resolve) => (release = resolve));
      return () => {
        control.gate = null;
        release();
      };
    },
  };
  const check = () => {
    if (control.failure) throw control.failure;
  };
  const fs: StorageFs = {
    ...nodeStorageFs,
    async open(file, options) {
      check();
      const handle = await nodeStorageFs.open(file, options);
      return {
        async write(data, position) {
          check();
          await handle.write(data, position);
        },
        async datasync() {
          if (control.gate) await control.gate;
          check();
          if (control.syncFailure) throw control.syncFailure;
          control.datasyncs++;
          await handle.datasync();
        },
        async truncate(length) {
          check();
          await handle.truncate(length);
        },
        close: () => handle.close(),
      };
    },
  };
  return { fs, control };
}

export function ioError(code: 'EIO' | 'ENOSPC'): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: simulated ${code === 'EIO' ? 'i/o error' : 'no space left on device'}`);
  err.code = code;
  return err;
}

/**
 * The storage's file layer, with writes into the snapshot file failing after `okWrites` of them
 * while `control.failing` is set: a crash in the middle of writing a snapshot's pages.
 */
export function snapshotWritesFail(okWrites: number) {
  const control = { failing: false };
  let writes = 0;
  const fs: StorageFs = {
    ...nodeStorageFs,
    async open(file, options) {
      const handle = await nodeStorageFs.open(file, options);
      if (path.basename(file) !== SNAPSHOT_FILE) return handle;
      return {
        ...handle,
        async write(data, position) {
          if (control.failing && writes++ >= okWrites) throw ioError('EIO');
          await handle.write(data, position);
        },
      };
    },
  };
  return { fs, control };
}

/** Every file of a directory (but `skip`) with a hash of its bytes: "nothing changed" made checkable. */
export async function dataDirFingerprint(dir: string, skip: readonly string[] = []): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    if (!skip.includes(name)) out[name] = createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex');
  }
  return out;
}
