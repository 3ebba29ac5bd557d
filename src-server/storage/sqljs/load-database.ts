/**
 * Recovery: the in-memory database rebuilt from a data directory, at open and after a failed
 * flush. The last snapshot (or an empty schema), then the journal replayed over it; see
 * ../README.md, "Recovery at open".
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { DefinitionCache } from './activities';
import { SNAPSHOT_FILE } from './data-dir-files';
import { FileChanges, beforeFileWrite, onFileWrite } from './file-changes';
import { allocateFileStorage, imageStorageFor } from './file-storage';
import { truncateDurably } from './fs';
import { PendingIngestion } from './ingestion';
import type { StorageFs } from './fs';
import { decodeJournal, isJournalFileName, journalFileName } from './journal-format';
import { applyOpInTransaction } from './ops';
import type { ApplyState } from './ops';
import { ensureSchema } from './schema';
import { finishSnapshotPages } from './snapshot-pages';
import { Sql, sqlJsFileName } from './sql';
import { TermIds } from './terms';

const sqlJsByWasm = new Map<string, Promise<SqlJsStatic>>();

/** sql.js compiled once per wasm file, shared by every storage of the process. */
export function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let loading = sqlJsByWasm.get(wasmPath);
  if (!loading) {
    loading = fsp.readFile(wasmPath).then((bytes) => {
      // The hooks scripts/patch-sqljs.mjs adds (file-storage.ts and file-changes.ts say why).
      const config = { wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), allocateFileStorage, beforeFileWrite, onFileWrite };
      return initSqlJs(config).then(assertFileHooks);
    });
    sqlJsByWasm.set(wasmPath, loading);
    loading.catch(() => sqlJsByWasm.delete(wasmPath));
  }
  return loading;
}

/**
 * Snapshots write only the pages the write hooks reported, and read frozen pages through them
 * (file-changes.ts): without them they would silently miss changes. They are missing when the
 * install's patch did not run, or when this process instantiated sql.js before (sql.js keeps its
 * first configuration). A probe database checks both: its writes are seen, and a write over a
 * frozen page keeps the page's contents first.
 */
function assertFileHooks(SQL: SqlJsStatic): SqlJsStatic {
  const db = new SQL.Database();
  const probe = new FileChanges(sqlJsFileName(db));
  try {
    db.run('CREATE TABLE probe (n INTEGER)');
    const seen = probe.changedPages > 0;
    const [pages, pageSize] = db.exec('SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()')[0]!.values[0] as number[];
    probe.take(pages! * pageSize!);
    db.run('INSERT INTO probe VALUES (1)');
    if (!seen || probe.keptFrozenPages === 0) {
      throw new Error(
        "sql.js runs without Lore's file hooks: run `npm install` (its postinstall patches sql.js), and load sql.js only through the storage",
      );
    }
    return SQL;
  } finally {
    probe.release();
    probe.dispose();
    db.close();
  }
}

export interface LoadContext {
  SQL: SqlJsStatic;
  fs: StorageFs;
  dataDir: string;
  log: (msg: string) => void;
  /** Journal files to read only up to this size (after a failed flush: the bytes known durable). */
  durableSizes: Map<string, number>;
}

export interface LoadedDatabase {
  state: ApplyState;
  /** The pages of the database file changed since it was read from the snapshot on disk. */
  changes: FileChanges;
  /** The journal seq the snapshot on disk holds. */
  snapshotSeq: number;
  snapshotExists: boolean;
  /** The journal seq of the newest record applied. */
  journalSeq: number;
  /** The journal file to append to next, and its size. */
  current: { path: string; size: number; exists: boolean };
  /** Journal files before the current one. */
  older: string[];
}

/** Loads the snapshot (or creates an empty database) and replays the journal over it. */
export async function loadDatabase(ctx: LoadContext): Promise<LoadedDatabase> {
  const snapshotPath = path.join(ctx.dataDir, SNAPSHOT_FILE);
  const { sql, changes, snapshotExists } = await openSnapshot(ctx, snapshotPath);
  try {
    let meta;
    try {
      // Our journal provides durability; SQLite's own rollback journal only needs to serve ROLLBACK.
      // One connection owns the in-memory file: exclusive locking skips the per-transaction lock
      // dance and change-counter check (about a third of a small transaction's cost).
      sql.db.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE');
      meta = ensureSchema(sql);
    } catch (err) {
      throw new Error(`cannot read ${snapshotPath}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const state: ApplyState = { sql, storeNums: new Map(), counts: new Map(), lastSeq: meta.lastSeq, definitions: new DefinitionCache(), ingestion: new PendingIngestion(), termIds: new TermIds() };
    loadCaches(state);
    const journal = await replayJournals(ctx, state, meta.journalSeq);
    return { state, changes, snapshotSeq: meta.journalSeq, snapshotExists, ...journal };
  } catch (err) {
    changes.dispose();
    sql.close();
    throw err;
  }
}

/**
 * The snapshot as an open database, once the pages of a snapshot a crash interrupted are written
 * into it (snapshot-pages.ts). Its bytes are read into the storage sql.js's file system then keeps
 * as the database file (file-storage.ts): no second copy of a database that may be gigabytes.
 */
async function openSnapshot(ctx: LoadContext, snapshotPath: string): Promise<{ sql: Sql; changes: FileChanges; snapshotExists: boolean }> {
  const finished = await finishSnapshotPages(ctx.fs, ctx.dataDir);
  if (finished > 0) ctx.log(`wrote the ${finished} pages of an interrupted snapshot into ${path.basename(snapshotPath)}`);
  const image = await ctx.fs.readFile(snapshotPath, imageStorageFor);
  const db = new ctx.SQL.Database(image);
  // From here every write to the file is a change the next snapshot writes (file-changes.ts).
  return { sql: new Sql(db), changes: new FileChanges(sqlJsFileName(db)), snapshotExists: image !== null };
}

/**
 * Applies the journal files in order, skipping the records the snapshot already holds. A torn or
 * corrupt record ends the replay; the newest file is cut back to its last good record.
 */
async function replayJournals(
  ctx: LoadContext,
  state: ApplyState,
  snapshotSeq: number,
): Promise<Pick<LoadedDatabase, 'journalSeq' | 'current' | 'older'>> {
  const names = (await ctx.fs.readdir(ctx.dataDir)).filter(isJournalFileName).sort();
  let journalSeq = snapshotSeq;
  let applied = 0;
  let current: LoadedDatabase['current'] | null = null;
  for (const [i, name] of names.entries()) {
    const file = path.join(ctx.dataDir, name);
    const whole = (await ctx.fs.readFile(file)) ?? new Uint8Array();
    const bytes = whole.subarray(0, ctx.durableSizes.get(file) ?? whole.length);
    const decoded = decodeJournal(bytes);
    for (const record of decoded.records) {
      if (record.j <= snapshotSeq && journalSeq === snapshotSeq) continue;
      if (record.j !== journalSeq + 1) {
        throw new Error(`journal ${file} holds record ${record.j} after record ${journalSeq}: records are missing`);
      }
      try {
        applyOpInTransaction(state, record.op);
      } catch (err) {
        throw new Error(`cannot apply journal record ${record.j} of ${file}: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      }
      journalSeq = record.j;
      applied++;
    }
    if (decoded.damage !== null) {
      if (i < names.length - 1) {
        // Only the newest file can end in a torn write; damage anywhere else loses acknowledged records.
        throw new Error(
          `journal ${file} is damaged (${decoded.damage}) and newer journal files follow it; ` +
            'not opening, as that would drop acknowledged writes. Restore the data directory from a backup.',
        );
      }
      ctx.log(`journal ${name}: ${decoded.damage}; dropped ${bytes.length - decoded.goodBytes} bytes after the last complete record`);
      await truncateDurably(ctx.fs, file, decoded.goodBytes);
    }
    current = { path: file, size: decoded.goodBytes, exists: true };
  }
  if (applied > 0) ctx.log(`replayed ${applied} journal records`);
  return {
    journalSeq,
    current: current ?? { path: path.join(ctx.dataDir, journalFileName(journalSeq + 1)), size: 0, exists: false },
    older: names.slice(0, -1).map((name) => path.join(ctx.dataDir, name)),
  };
}

/** Rebuilds the in-memory lookups from the database (at load, and after a write that failed to apply). */
export function loadCaches(state: ApplyState): void {
  const { sql } = state;
  state.definitions.clear();
  state.termIds.clear();
  state.storeNums.clear();
  state.counts.clear();
  for (const [id, num] of sql.all('SELECT id, num FROM stores')) {
    state.storeNums.set(id as string, num as number);
    state.counts.set(num as number, { statements: 0, rejections: 0 });
  }
  for (const table of ['statements', 'rejections'] as const) {
    for (const [num, n] of sql.all(`SELECT store_num, count(*) FROM ${table} GROUP BY store_num`)) {
      const counts = state.counts.get(num as number);
      if (counts) counts[table] = n as number;
    }
  }
  const [maxStatement, maxRejection] = sql.first(
    'SELECT (SELECT coalesce(max(seq), 0) FROM statements), (SELECT coalesce(max(seq), 0) FROM rejections)',
  )!;
  state.lastSeq = Math.max(state.lastSeq, maxStatement as number, maxRejection as number);
}
