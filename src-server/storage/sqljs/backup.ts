/**
 * Backups of the embedded database: an image taken from a consistent point of a running service
 * (DurableDatabase.exportImage, the snapshot's own export), its verification, and the restore of
 * one into a data directory that no service holds. See README.md, "Backups".
 */
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { nodeStorageFs, readWholeFile, writeFileDurably } from './fs';
import { isJournalFileName, surveyJournal } from './journal-format';
import { SNAPSHOT_FILE, SNAPSHOT_PAGES_FILE, SNAPSHOT_SUMS_FILE, SNAPSHOT_TEMP_FILE } from './data-dir-files';
import { loadSqlJs } from './load-database';
import { lockDataDir } from './lock';
import { SCHEMA_VERSION } from './schema';
import { Sql } from './sql';

/** A file that is not a backup this release can restore; the message says why in plain words. */
export class InvalidBackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidBackupError';
  }
}

export interface BackupSummary {
  bytes: number;
  schemaVersion: number;
  /** The journal record the image holds up to (a restored service continues after it). */
  journalSeq: number;
  stores: number;
  statements: number;
  rejections: number;
}

const SQLITE_HEADER = 'SQLite format 3\0';
/** Tables every Lore database has since schema version 1. */
// (Index terms changed layout since: an older image has statement_terms, a newer terms; the open converts.)
const REQUIRED_TABLES = ['meta', 'stores', 'api_keys', 'statements', 'rejections'];

export function sqlJsForBackups(wasmPath?: string): Promise<SqlJsStatic> {
  return loadSqlJs(wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
}

/** Whether `bytes` start like an SQLite database file (cheap; verifyBackup checks the rest). */
export function hasSqliteHeader(bytes: Uint8Array): boolean {
  return bytes.length >= 100 && Buffer.from(bytes.subarray(0, 16)).toString('latin1') === SQLITE_HEADER;
}

/**
 * The read-only queries a backup's check runs: in one place, for the check in this thread
 * (verifyBackup) and the one in a worker thread (backup-file.ts), which runs them all and hands
 * back each one's rows or error.
 */
export const CHECK_QUERIES = {
  quickCheck: 'PRAGMA quick_check',
  tables: "SELECT name FROM sqlite_master WHERE type = 'table'",
  meta: 'SELECT key, value FROM meta',
  stores: 'SELECT count(*) FROM stores',
  statements: 'SELECT count(*) FROM statements',
  rejections: 'SELECT count(*) FROM rejections',
} as const;
export type CheckQuery = keyof typeof CHECK_QUERIES;
/** Runs one of CHECK_QUERIES and returns its rows; throws what the database throws. */
export type CheckRunner = (query: CheckQuery) => unknown[][];

/** Opens the image and checks it is a whole Lore database this release reads; throws InvalidBackupError. */
export function verifyBackup(SQL: SqlJsStatic, bytes: Uint8Array, name = 'the file'): BackupSummary {
  if (!hasSqliteHeader(bytes)) throw new InvalidBackupError(`${name} is not an SQLite database (its first bytes are not "SQLite format 3").`);
  let sql: Sql;
  try {
    sql = new Sql(new SQL.Database(bytes));
  } catch (err) {
    throw new InvalidBackupError(`${name} cannot be opened as an SQLite database: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return checkBackup((query) => sql.all(CHECK_QUERIES[query]), bytes.length, name);
  } finally {
    sql.close();
  }
}

/** The checks of a Lore database, over its CHECK_QUERIES; throws InvalidBackupError. */
export function checkBackup(run: CheckRunner, bytes: number, name: string): BackupSummary {
  try {
    const check = run('quickCheck').map(([line]) => String(line));
    if (check.join() !== 'ok') throw new InvalidBackupError(`${name} is damaged: ${check.slice(0, 3).join('; ')}`);
    const tables = new Set(run('tables').map(([table]) => table as string));
    const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
    if (missing.length > 0) throw new InvalidBackupError(`${name} is an SQLite database but not a Lore one: it has no ${missing.join(', ')} table.`);
    const meta = new Map(run('meta').map(([key, value]) => [key as string, Number(value)]));
    const schemaVersion = meta.get('schema_version') ?? 0;
    if (schemaVersion < 1 || schemaVersion > SCHEMA_VERSION) {
      throw new InvalidBackupError(`${name} has schema version ${schemaVersion}; this release reads 1 to ${SCHEMA_VERSION}.`);
    }
    const count = (query: 'stores' | 'statements' | 'rejections') => run(query)[0]![0] as number;
    return {
      bytes,
      schemaVersion,
      journalSeq: meta.get('journal_seq') ?? 0,
      stores: count('stores'),
      statements: count('statements'),
      rejections: count('rejections'),
    };
  } catch (err) {
    if (err instanceof InvalidBackupError) throw err;
    throw new InvalidBackupError(`${name} cannot be read as a Lore database: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export interface RestoreResult extends BackupSummary {
  /** The files of the previous data, renamed: `<name>.before-restore` (`.before-restore.2`, ... when taken). */
  keptAs: string[];
  /** With `replayJournal`: the journal records after the backup's that the next start replays. */
  replays: { from: number; through: number } | null;
}

/**
 * Makes `from` the data directory's database. Refuses while a service holds the directory (it
 * takes the lock itself for the duration), refuses a file that is not a Lore backup, and renames
 * the previous snapshot and journal files instead of deleting them.
 *
 * `replayJournal`: the journal files stay in place (copies are kept too), so the next start
 * replays every record written after the backup over it — the way back from a damaged snapshot
 * (snapshot-sums.ts) that loses nothing the journal still holds. Refused when the journal no
 * longer reaches back to the backup (records between the two were only in the snapshot).
 */
export async function restoreDataDir(options: {
  dataDir: string;
  from: string;
  replayJournal?: boolean;
  wasmPath?: string;
  log?: (msg: string) => void;
}): Promise<RestoreResult> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  const bytes = await readWholeFile(options.from).catch((err: NodeJS.ErrnoException) => {
    throw new InvalidBackupError(`cannot read ${options.from}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const summary = verifyBackup(await sqlJsForBackups(options.wasmPath), bytes, options.from);
  await fsp.mkdir(dataDir, { recursive: true });
  // Throws DataDirLockedError when a service runs on the directory.
  const lock = await lockDataDir(dataDir, log);
  try {
    const names = (await fsp.readdir(dataDir)).sort();
    const journals = names.filter(isJournalFileName);
    const replays = options.replayJournal ? await journalAfter(dataDir, journals, summary.journalSeq) : null;
    // Everything the previous data is made of: a snapshot's pages file a crash left belongs to it too.
    const previous = names.filter((name) => name === SNAPSHOT_FILE || name === SNAPSHOT_PAGES_FILE || name === SNAPSHOT_SUMS_FILE || isJournalFileName(name));
    const suffix = await freeSuffix(dataDir, previous);
    const temp = path.join(dataDir, SNAPSHOT_TEMP_FILE);
    await writeFileDurably(nodeStorageFs, temp, bytes);
    const keptAs: string[] = [];
    for (const name of previous) {
      // Journal files to replay stay where the start reads them; a copy is kept like the rest.
      if (replays && isJournalFileName(name)) await fsp.copyFile(path.join(dataDir, name), path.join(dataDir, name + suffix));
      else await fsp.rename(path.join(dataDir, name), path.join(dataDir, name + suffix));
      keptAs.push(name + suffix);
    }
    await fsp.rename(temp, path.join(dataDir, SNAPSHOT_FILE));
    await nodeStorageFs.syncDir(dataDir);
    log(`restored ${options.from} into ${dataDir}${keptAs.length ? `; the previous data is kept as ${keptAs.join(', ')}` : ''}`);
    return { ...summary, keptAs, replays };
  } finally {
    await lock.release();
  }
}

/** The journal records after `backupSeq` that the files hold, or why they cannot be replayed over it. */
async function journalAfter(dataDir: string, journals: string[], backupSeq: number): Promise<{ from: number; through: number }> {
  let first: number | null = null;
  let last = backupSeq;
  for (const name of journals) {
    const survey = surveyJournal(await fsp.readFile(path.join(dataDir, name)));
    const damaged = survey.damage.find((span) => span.seqAfter !== null);
    if (damaged) throw new InvalidBackupError(`${name} is damaged at byte ${damaged.offset} (${damaged.reason}): run \`npm run repair\` first, then restore`);
    for (const { record } of survey.records) {
      first ??= record.j;
      last = Math.max(last, record.j);
    }
  }
  if (first !== null && first > backupSeq + 1) {
    throw new InvalidBackupError(
      `the backup holds journal records up to ${backupSeq} and the journal starts at ${first}: records ${backupSeq + 1} to ${first - 1} ` +
        'were only in the snapshot, so the journal cannot be replayed over this backup. Restore a newer backup, or restore without --replay-journal.',
    );
  }
  return { from: backupSeq + 1, through: last };
}

async function freeSuffix(dataDir: string, names: string[]): Promise<string> {
  const existing = new Set(await fsp.readdir(dataDir));
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '.before-restore' : `.before-restore.${n}`;
    if (names.every((name) => !existing.has(name + suffix))) return suffix;
  }
}
