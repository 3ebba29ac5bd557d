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
import { NameCache } from './explorer-names';
import { SNAPSHOT_FILE, SNAPSHOT_SUMS_FILE } from './data-dir-files';
import { FileChanges, PAGE_BYTES, beforeFileWrite, onFileWrite } from './file-changes';
import type { PageSource } from './file-changes';
import { allocateFileStorage, imageStorageFor } from './file-storage';
import { truncateDurably } from './fs';
import { PendingIngestion } from './ingestion';
import type { StorageFs } from './fs';
import { decodeJournal, encodeRecord, findNextRecord, isJournalFileName, journalFileName, statementIdsIn, surveyJournal } from './journal-format';
import type { JournalRecord } from './journal-format';
import { applyOpInTransaction } from './ops';
import type { ApplyState } from './apply-state';
import { ensureSchema } from './schema';
import { finishSnapshotPages } from './snapshot-pages';
import { PageSummer, PageSums, SnapshotDamagedError, describePages, readPageSums, writePageSums } from './snapshot-sums';
import { Sql, sqlJsFileName } from './sql';
import { StatementEncoder } from './statement-codec';
import { readStoreCounts } from './store-counts';
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
  /** Set by the repair command: read on past damage and note what is lost instead of refusing. */
  repair?: JournalRepairLog;
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
  /** The snapshot's page sums (snapshot-sums.ts); null while there is no snapshot. */
  sums: PageSums | null;
}

/**
 * SQLite's page cache, in KiB (a negative cache_size). The database file is itself in memory, but
 * a page outside the cache is copied in from it on every use; SQLite's default of 2 MiB holds few
 * of a large Store's index pages, so a page of 50 statements at 300,000 statements copied most of
 * the pages it walked. 32 MiB keeps the B-trees' inner pages and the recent rows: the SQL of a
 * filtered GET costs ~20% less there, for at most 32 MiB more memory (the cache fills as it is used).
 */
const PAGE_CACHE_SIZE = -32 * 1024;

/** A snapshot from this size on gets a line in the log saying where its open's time went. */
const LOG_OPEN_FROM_BYTES = 64 * 1024 * 1024;

/** Where an open's time went, phase by phase, for the log: start-up time follows the data's size. */
class OpenPhases {
  private readonly started = performance.now();
  private last = this.started;
  private readonly spent: string[] = [];

  done(phase: string): void {
    const now = performance.now();
    this.spent.push(`${phase} ${Math.round(now - this.last)}`);
    this.last = now;
  }

  summary(): string {
    return `${Math.round(this.last - this.started)} ms (${this.spent.join(', ')})`;
  }
}

/** Loads the snapshot (or creates an empty database) and replays the journal over it. */
export async function loadDatabase(ctx: LoadContext): Promise<LoadedDatabase> {
  const snapshotPath = path.join(ctx.dataDir, SNAPSHOT_FILE);
  const phases = new OpenPhases();
  const { sql, changes, snapshotExists, actualSums, finished } = await openSnapshot(ctx, snapshotPath);
  phases.done('read and page sums');
  try {
    const onDisk = actualSums ? await readPageSums(ctx.fs, ctx.dataDir) : null;
    const mismatch = onDisk instanceof PageSums && actualSums ? onDisk.mismatches(actualSums) : null;
    let meta;
    try {
      // Our journal provides durability; SQLite's own rollback journal only needs to serve ROLLBACK.
      // One connection owns the in-memory file: exclusive locking skips the per-transaction lock
      // dance and change-counter check (about a third of a small transaction's cost).
      sql.db.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE');
      sql.db.exec(`PRAGMA cache_size = ${PAGE_CACHE_SIZE}`);
      meta = ensureSchema(sql);
      assertNoAutoVacuum(sql, snapshotPath);
    } catch (err) {
      if (err instanceof AutoVacuumError) throw err;
      if (mismatch && mismatch.pages.length > 0) throw new SnapshotDamagedError(snapshotPath, describePages(mismatch.pages), ctx.dataDir);
      throw new Error(`cannot read ${snapshotPath}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const sums = actualSums && (await settleSnapshotSums(ctx, sql, snapshotPath, { actual: actualSums, onDisk, mismatch, journalSeq: meta.journalSeq, finished }));
    const state: ApplyState = { sql, storeNums: new Map(), counts: new Map(), lastSeq: meta.lastSeq, definitions: new DefinitionCache(), ingestion: new PendingIngestion(), termIds: new TermIds(), names: new NameCache(), encoder: new StatementEncoder() };
    phases.done('schema and page sums check');
    // The image is exactly the snapshot here: counts it keeps of its own journal seq hold.
    loadCaches(state, meta.journalSeq);
    phases.done('counts');
    const journal = await replayJournals(ctx, state, meta.journalSeq);
    phases.done('journal');
    if (actualSums && actualSums.fileBytes >= LOG_OPEN_FROM_BYTES) {
      ctx.log(`opened ${path.basename(snapshotPath)} (${Math.round(actualSums.fileBytes / 1024 ** 2)} MiB) in ${phases.summary()}`);
    }
    return { state, changes, snapshotSeq: meta.journalSeq, snapshotExists, sums, ...journal };
  } catch (err) {
    changes.dispose();
    sql.close();
    throw err;
  }
}

/** A database file that SQLite may shrink by itself (auto_vacuum): Lore cannot follow its pages. */
export class AutoVacuumError extends Error {
  constructor(snapshotPath: string, mode: number) {
    super(
      `${snapshotPath} has auto_vacuum = ${mode}; Lore needs 0: it follows the database file's changed pages, and a file SQLite shrinks by itself ` +
        'would lose pages from under it (docs/sqljs-upgrade.md). Turn it off with the sqlite3 tool (PRAGMA auto_vacuum = 0; VACUUM;) on a copy, then restore that copy.',
    );
    this.name = 'AutoVacuumError';
  }
}

/**
 * The changed-pages snapshots (file-changes.ts) rely on a database file that never shrinks while
 * the storage runs: no VACUUM (nothing in Lore runs one), and no auto_vacuum, which SQLite would
 * apply at each commit. A file made elsewhere with it on is refused at open.
 */
function assertNoAutoVacuum(sql: Sql, snapshotPath: string): void {
  const mode = Number(sql.first('PRAGMA auto_vacuum')?.[0] ?? 0);
  if (mode !== 0) throw new AutoVacuumError(snapshotPath, mode);
}

/**
 * The snapshot as an open database, once the pages of a snapshot a crash interrupted are written
 * into it (snapshot-pages.ts). Its bytes are read into the storage sql.js's file system then keeps
 * as the database file (file-storage.ts): no second copy of a database that may be gigabytes.
 */
async function openSnapshot(
  ctx: LoadContext,
  snapshotPath: string,
): Promise<{ sql: Sql; changes: FileChanges; snapshotExists: boolean; actualSums: PageSums | null; finished: PageSource | null }> {
  const finished = await finishSnapshotPages(ctx.fs, ctx.dataDir);
  if (finished) ctx.log(`wrote the ${finished.pages.length} pages of an interrupted snapshot into ${path.basename(snapshotPath)}`);
  // The sums of the bytes as read, before sql.js owns them (it changes them in place from here),
  // taken while the rest of the file is read.
  const summer = new PageSummer();
  const image = await ctx.fs.readFile(snapshotPath, imageStorageFor, summer.onRead);
  const actualSums = image && summer.finish(image);
  const db = new ctx.SQL.Database(image);
  // From here every write to the file is a change the next snapshot writes (file-changes.ts).
  return { sql: new Sql(db), changes: new FileChanges(sqlJsFileName(db)), snapshotExists: image !== null, actualSums, finished };
}

/**
 * The snapshot's page sums, checked (snapshot-sums.ts): sums of the snapshot read (the same journal
 * seq) that name a page whose bytes differ are damage, refused. Sums of another snapshot (a crash
 * between a snapshot and its sums), unreadable ones, or none (a data directory of an older
 * version) prove nothing: the snapshot is checked with PRAGMA quick_check instead, and its sums
 * written for the next open.
 */
async function settleSnapshotSums(
  ctx: LoadContext,
  sql: Sql,
  snapshotPath: string,
  found: {
    actual: PageSums;
    onDisk: PageSums | string | null;
    mismatch: { pages: number[]; sizeDiffers: boolean } | null;
    journalSeq: number;
    /** The pages of an interrupted snapshot this open wrote into the file (finishSnapshotPages). */
    finished: PageSource | null;
  },
): Promise<PageSums> {
  const { actual, onDisk, mismatch, journalSeq, finished } = found;
  const current = actual.withJournalSeq(journalSeq);
  if (onDisk instanceof PageSums && onDisk.journalSeq === journalSeq && mismatch) {
    if (mismatch.pages.length > 0) throw new SnapshotDamagedError(snapshotPath, describePages(mismatch.pages), ctx.dataDir);
    if (!mismatch.sizeDiffers) return onDisk;
    throw new SnapshotDamagedError(snapshotPath, `it holds ${actual.fileBytes} bytes where ${SNAPSHOT_SUMS_FILE} says ${onDisk.fileBytes}`, ctx.dataDir);
  }
  const why = onDisk === null ? 'has no page checksums yet' : typeof onDisk === 'string' ? `has unreadable page checksums (${onDisk})` : 'has the page checksums of an earlier snapshot';
  const check = quickCheck(sql);
  if (check !== 'ok') {
    // A crash between an interrupted snapshot's pages file and its sums leaves the earlier
    // snapshot's sums: with the pages this open wrote, they are what the file should hold.
    const expected = onDisk instanceof PageSums && finished ? onDisk.afterChanges(journalSeq, finished.fileBytes, finished.pages, pageSumsOf(finished)) : null;
    const damaged = expected ? expected.mismatches(actual).pages : [];
    throw new SnapshotDamagedError(snapshotPath, damaged.length > 0 ? describePages(damaged) : `PRAGMA quick_check finds ${check}`, ctx.dataDir);
  }
  ctx.log(`${path.basename(snapshotPath)} ${why}: PRAGMA quick_check found it whole; writing them`);
  await writePageSums(ctx.fs, ctx.dataDir, current).catch((err: unknown) => {
    // The next snapshot writes them too; a full disk is no reason not to open.
    ctx.log(`could not write ${SNAPSHOT_SUMS_FILE}: ${err instanceof Error ? err.message : String(err)}`);
  });
  return current;
}

/** PRAGMA quick_check's finding ('ok' when whole); damage bad enough to stop the check is a finding too. */
function quickCheck(sql: Sql): string {
  try {
    return sql.all('PRAGMA quick_check').map(([line]) => String(line)).slice(0, 3).join('; ');
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The sums of the pages a pages file holds, in its order. */
function pageSumsOf(source: PageSource): Uint32Array {
  const sums = new Uint32Array(source.pages.length);
  const take = PageSums.ofRun(source.pages, source.fileBytes, sums);
  const page = new Uint8Array(PAGE_BYTES);
  for (let i = 0; i < source.pages.length; i++) {
    source.copy(i, i + 1, page);
    take(i, page);
  }
  return sums;
}

/**
 * Applies the journal files in order, skipping the records the snapshot already holds.
 *
 * A bad record with no whole record after it anywhere is a torn tail: a write a crash cut short,
 * never acknowledged. It is cut off. A bad record with whole records after it is damage: cutting
 * there would destroy acknowledged writes, so the open is refused (JournalDamagedError) with
 * nothing changed, and the repair command takes over (`ctx.repair`, journal-repair.ts).
 */
async function replayJournals(
  ctx: LoadContext,
  state: ApplyState,
  snapshotSeq: number,
): Promise<Pick<LoadedDatabase, 'journalSeq' | 'current' | 'older'>> {
  const names = (await ctx.fs.readdir(ctx.dataDir)).filter(isJournalFileName).sort();
  const replay = { journalSeq: snapshotSeq, applied: 0, snapshotSeq };
  let current: LoadedDatabase['current'] | null = null;
  for (const [i, name] of names.entries()) {
    const file = path.join(ctx.dataDir, name);
    const whole = (await ctx.fs.readFile(file)) ?? new Uint8Array();
    const bytes = whole.subarray(0, ctx.durableSizes.get(file) ?? whole.length);
    if (ctx.repair) {
      current = { path: file, size: replayForRepair(ctx.repair, state, replay, file, bytes, i === names.length - 1), exists: true };
      continue;
    }
    const decoded = decodeJournal(bytes);
    // One SQL transaction for the file's records, each a savepoint of it, as the live path groups
    // the writes of one turn (durable-database.ts): a record no longer pays its own COMMIT. A
    // record that cannot be applied fails the open, and the database is dropped with it.
    state.sql.beginGroup();
    for (const record of decoded.records) applyRecord(state, replay, record, file);
    state.sql.endGroup();
    if (decoded.damage !== null) {
      const next = findNextRecord(bytes, decoded.goodBytes, replay.journalSeq);
      const later = await countLaterRecords(ctx, names.slice(i + 1));
      if (next || later > 0) {
        const following = (next ? surveyJournal(bytes.subarray(next.offset)).records.length : 0) + later;
        throw new JournalDamagedError(file, decoded.damage, following, ctx.dataDir);
      }
      ctx.log(`journal ${name}: torn tail (a write cut short by a crash, never acknowledged): ${decoded.damage}; dropped ${bytes.length - decoded.goodBytes} bytes after the last complete record`);
      await truncateDurably(ctx.fs, file, decoded.goodBytes);
    }
    current = { path: file, size: decoded.goodBytes, exists: true };
  }
  if (replay.applied > 0) ctx.log(`replayed ${replay.applied} journal records`);
  return {
    journalSeq: replay.journalSeq,
    current: current ?? { path: path.join(ctx.dataDir, journalFileName(replay.journalSeq + 1)), size: 0, exists: false },
    older: names.slice(0, -1).map((name) => path.join(ctx.dataDir, name)),
  };
}

interface ReplayProgress {
  snapshotSeq: number;
  /** The journal seq of the last record applied (or accounted for by a lostRecords record). */
  journalSeq: number;
  applied: number;
}

/** Whether the snapshot already holds the record (replay skips it). */
function inSnapshot(replay: ReplayProgress, record: JournalRecord): boolean {
  return record.j <= replay.snapshotSeq && replay.journalSeq === replay.snapshotSeq;
}

function applyRecord(state: ApplyState, replay: ReplayProgress, record: JournalRecord, file: string): void {
  if (inSnapshot(replay, record)) return;
  if (record.j !== replay.journalSeq + 1) {
    throw new Error(`journal ${file} holds record ${record.j} after record ${replay.journalSeq}: records are missing`);
  }
  try {
    applyOpInTransaction(state, record.op);
  } catch (err) {
    throw new Error(`cannot apply journal record ${record.j} of ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  replay.journalSeq = record.op.t === 'lostRecords' ? record.op.through : record.j;
  replay.applied++;
}

/** Whole records in journal files after a damaged one: what cutting there would destroy. */
async function countLaterRecords(ctx: LoadContext, names: string[]): Promise<number> {
  let count = 0;
  for (const name of names) count += surveyJournal((await ctx.fs.readFile(path.join(ctx.dataDir, name))) ?? new Uint8Array()).records.length;
  return count;
}

/**
 * Repair's replay of one file: every whole record it can read and apply, a lostRecords record
 * where records are missing or cannot be applied (a record that needs a lost one), and the file's
 * new bytes for the repair command to write. Returns the new size.
 */
function replayForRepair(repair: JournalRepairLog, state: ApplyState, replay: ReplayProgress, file: string, bytes: Uint8Array, newest: boolean): number {
  const survey = surveyJournal(bytes);
  const kept: Uint8Array[] = [];
  let changed = survey.damage.length > 0;
  const lose = (through: number, reason: string, statementIds: string[], records: number) => {
    const marker: JournalRecord = { j: replay.journalSeq + 1, op: { t: 'lostRecords', through, reason, statementIds } };
    kept.push(encodeRecord(marker));
    applyRecord(state, replay, marker, file);
    repair.lost.push({ file, reason, records, statementIds });
    changed = true;
  };
  for (const at of survey.records) {
    const { record } = at;
    if (inSnapshot(replay, record)) {
      kept.push(bytes.subarray(at.offset, at.offset + at.length));
      continue;
    }
    if (record.j > replay.journalSeq + 1) {
      // Records are missing before this one: the damaged bytes held them.
      const span = survey.damage.findLast((d) => d.end <= at.offset);
      const where = span ? `${span.reason} at byte ${span.offset} of ${path.basename(file)}` : `missing before record ${record.j}`;
      const ids = span ? statementIdsIn(bytes.subarray(span.offset, span.end)) : [];
      lose(record.j - 1, where, ids, record.j - 1 - replay.journalSeq);
    }
    if (record.j !== replay.journalSeq + 1) {
      // An older copy of a record already accounted for (seq at or below the last): not replayed twice.
      changed = true;
      continue;
    }
    const ids = record.op.t === 'insertStatements' ? record.op.rows.map((row) => row.statementId) : [];
    const orphan = missingStore(state, record.op);
    if (orphan !== null) {
      // Applied, its rows would wait for whichever Store takes that number next.
      lose(record.j, `record ${record.j} belongs to a Store whose creation was lost (${orphan})`, ids, 1);
      continue;
    }
    try {
      applyRecord(state, replay, record, file);
      kept.push(bytes.subarray(at.offset, at.offset + at.length));
    } catch (err) {
      // The transaction rolled back; the lookups it may have filled must go with it.
      loadCaches(state);
      lose(record.j, `record ${record.j} could not be applied without the lost ones: ${err instanceof Error ? err.message : String(err)}`, ids, 1);
    }
  }
  const tail = survey.damage.at(-1);
  if (tail && tail.seqAfter === null && newest) repair.tornTail = { file, offset: tail.offset, bytes: tail.end - tail.offset };
  const content = Buffer.concat(kept);
  if (changed) repair.rewrites.set(file, content);
  return content.length;
}

/** The Store an operation names that does not exist (its creation was lost), or null. */
function missingStore(state: ApplyState, op: JournalRecord['op']): string | null {
  const nums = new Set(state.storeNums.values());
  if ('storeNum' in op && typeof op.storeNum === 'number' && !nums.has(op.storeNum)) return `Store number ${op.storeNum}`;
  if (op.t === 'insertRefusals') {
    const unknown = op.rows.find((row) => row.storeNum !== 0 && !nums.has(row.storeNum));
    if (unknown) return `Store number ${unknown.storeNum}`;
  }
  if (op.t === 'insertApiKey' && !state.storeNums.has(op.key.storeId)) return `Store ${op.key.storeId}`;
  return null;
}

/** What a repair found, filled by loadDatabase when `LoadContext.repair` is set. */
export interface JournalRepairLog {
  /** Journal files and the bytes they should hold: whole records and lostRecords records. */
  rewrites: Map<string, Buffer>;
  lost: Array<{ file: string; reason: string; records: number; statementIds: string[] }>;
  /** A torn tail cut from the newest file (a write never acknowledged). */
  tornTail: { file: string; offset: number; bytes: number } | null;
}

/** Damage with whole records after it: opening would have to destroy them, so it is refused. */
export class JournalDamagedError extends Error {
  constructor(
    readonly file: string,
    readonly damage: string,
    readonly recordsAfter: number,
    dataDir: string,
  ) {
    super(
      `journal ${file} is damaged (${damage}), and ${recordsAfter} whole record${recordsAfter === 1 ? '' : 's'} follow the damage. ` +
        'Lore did not start and changed nothing, as cutting the journal there would lose acknowledged writes. ' +
        `Run \`npm run repair -- --data-dir ${dataDir}\`: it keeps a copy of every file it changes, skips only the damaged record(s) and reports what they held.`,
    );
    this.name = 'JournalDamagedError';
  }
}

/**
 * Rebuilds the in-memory lookups from the database (at load, and after a write that failed to
 * apply). `imageSeq`: the database is the image of that journal seq, as read, so the counts it
 * keeps of that seq (store-counts.ts) are read instead of counting the rows.
 */
export function loadCaches(state: ApplyState, imageSeq?: number): void {
  const { sql } = state;
  state.definitions.clear();
  state.termIds.clear();
  state.names.clear();
  state.storeNums.clear();
  state.counts.clear();
  for (const [id, num] of sql.all('SELECT id, num FROM stores')) state.storeNums.set(id as string, num as number);
  const kept = imageSeq === undefined ? null : readStoreCounts(sql, imageSeq, state.storeNums.values());
  for (const num of state.storeNums.values()) state.counts.set(num, kept?.get(num) ?? { statements: 0, rejections: 0 });
  if (!kept) {
    for (const table of ['statements', 'rejections'] as const) {
      for (const [num, n] of sql.all(`SELECT store_num, count(*) FROM ${table} GROUP BY store_num`)) {
        const counts = state.counts.get(num as number);
        if (counts) counts[table] = n as number;
      }
    }
  }
  const [maxStatement, maxRejection] = sql.first(
    'SELECT (SELECT coalesce(max(seq), 0) FROM statements), (SELECT coalesce(max(seq), 0) FROM rejections)',
  )!;
  state.lastSeq = Math.max(state.lastSeq, maxStatement as number, maxRejection as number);
}
