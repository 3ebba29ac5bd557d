/**
 * A backup written by the service into a folder (the schedule: admin/backup-schedule.ts): the
 * snapshot, brought up to date, copied under a temporary name (DurableDatabase.copySnapshotTo: no
 * writer waits for it), checked in a worker thread, then renamed to its final name. A backup that
 * fails its check is removed; nothing half-written ever carries a final name.
 *
 * The check opens the copy with its own sql.js in a worker, so a database of gigabytes is checked
 * without holding a single request (the worker needs the copy's size in memory while it runs). On
 * Linux the worker thread runs at the lowest priority: the check takes a core for seconds, and on
 * a machine with few cores the service's own thread would otherwise wait for one, holding every
 * request (measured on 2 cores: the event loop held 100–170 ms at a time while a check ran).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CHECK_QUERIES, InvalidBackupError, checkBackup, hasSqliteHeader, type BackupSummary, type CheckQuery } from './backup';
import { nodeStorageFs } from './fs';

/** Where the worker finds sql.js: the module and its wasm (the desktop app ships its own). */
export interface SqlJsFiles {
  module: string;
  wasm: string;
}

type CheckResults = Record<CheckQuery, { rows: unknown[][] } | { error: string }>;

/**
 * Plain JavaScript, run as the worker's script: it loads sql.js itself (a dependency that stays
 * in node_modules in every build), runs CHECK_QUERIES on the file and posts back each one's rows
 * or error. No logic of its own: checkBackup decides in this thread.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const initSqlJs = require(workerData.module);
// Linux keeps a priority per thread, so this lowers the check's thread alone (elsewhere it would
// lower the whole service: not there).
if (process.platform === 'linux') {
  try {
    require('node:os').setPriority(19);
  } catch {
    // Not allowed here (a sandbox): the check runs at the service's priority.
  }
}
(async () => {
  const SQL = await initSqlJs({ wasmBinary: fs.readFileSync(workerData.wasm) });
  let db;
  try {
    db = new SQL.Database(fs.readFileSync(workerData.file));
  } catch (error) {
    parentPort.postMessage({ openError: String(error && error.message || error) });
    return;
  }
  const results = {};
  for (const [name, sql] of Object.entries(workerData.queries)) {
    try {
      const [result] = db.exec(sql);
      results[name] = { rows: result ? result.values : [] };
    } catch (error) {
      results[name] = { error: String(error && error.message || error) };
    }
  }
  db.close();
  parentPort.postMessage({ results });
})().catch((error) => parentPort.postMessage({ openError: String(error && error.message || error) }));
`;

function runCheckWorker(file: string, sqlJs: SqlJsFiles): Promise<{ openError?: string; results?: CheckResults }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, module: sqlJs.module, wasm: sqlJs.wasm, queries: CHECK_QUERIES } });
    worker.once('message', (message: { openError?: string; results?: CheckResults }) => {
      resolve(message);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the backup check stopped (exit code ${code})`)));
  });
}

/** Checks a backup file in a worker thread; throws InvalidBackupError naming what is wrong. */
export async function verifyBackupFile(file: string, sqlJs: SqlJsFiles, name = path.basename(file)): Promise<BackupSummary> {
  const handle = await fsp.open(file, 'r');
  let header: Buffer;
  let bytes: number;
  try {
    header = Buffer.alloc(100);
    await handle.read(header, 0, 100, 0);
    bytes = (await handle.stat()).size;
  } finally {
    await handle.close();
  }
  if (!hasSqliteHeader(header)) throw new InvalidBackupError(`${name} is not an SQLite database (its first bytes are not "SQLite format 3").`);
  const { openError, results } = await runCheckWorker(file, sqlJs);
  if (openError !== undefined || !results) throw new InvalidBackupError(`${name} cannot be opened as an SQLite database: ${openError}`);
  return checkBackup(
    (query) => {
      const result = results[query];
      if ('error' in result) throw new Error(result.error);
      return result.rows;
    },
    bytes,
    name,
  );
}

/**
 * Writes a backup to `file`: `copy` puts the up-to-date snapshot at the temporary name
 * `<file>.part`, which is checked, fsynced and renamed. On any failure the temporary file is
 * removed and the error thrown.
 */
export async function writeCheckedBackup(file: string, copy: (temp: string) => Promise<unknown>, sqlJs: SqlJsFiles): Promise<BackupSummary> {
  const temp = `${file}.part`;
  try {
    await copy(temp);
    const summary = await verifyBackupFile(temp, sqlJs, path.basename(file));
    const handle = await nodeStorageFs.open(temp, { truncate: false });
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fsp.rename(temp, file);
    await nodeStorageFs.syncDir(path.dirname(file));
    return summary;
  } catch (error) {
    await fsp.rm(temp, { force: true });
    throw error;
  }
}
