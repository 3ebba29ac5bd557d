/**
 * The durable database: sql.js in memory, made durable by the journal (group commit) and by
 * snapshots. It owns the data directory (lock, files), the write path, the recovery from a failed
 * flush, snapshots and the coalesced API-key last-used times. It knows journal operations, not
 * domains: each domain's module builds its operations (ops.ts) and reads through `sql`.
 * See ../README.md for the file formats, recovery and the crash-window reasoning.
 *
 * The write path, with no await between its steps (so writes are atomic with respect to each
 * other): the caller checks (conflicts, existence) and builds the operation → `commit` encodes the
 * record, applies it in one SQL transaction and queues it → the promise resolves once it is fsynced.
 */
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { StorageUnavailableError } from '../errors';
import { nodeStorageFs, truncateDurably, writeFileDurably } from './fs';
import type { StorageFs } from './fs';
import { PAGE_BYTES } from './file-changes';
import type { FileChanges } from './file-changes';
import { encodeRecord, journalFileName, journalFirstSeq } from './journal-format';
import { JournalWriter } from './journal-writer';
import { PROBE_FILE, SNAPSHOT_FILE, SNAPSHOT_SUMS_FILE, SNAPSHOT_TEMP_FILE } from './data-dir-files';
import { loadCaches, loadDatabase, loadSqlJs } from './load-database';
import type { LoadedDatabase } from './load-database';
import { lockDataDir } from './lock';
import type { DataDirLock } from './lock';
import { applyOp, applyOpInTransaction, flushDerived } from './ops';
import type { Op } from './ops';
import type { ApplyState } from './apply-state';
import { writeMeta } from './schema';
import { applySnapshotPages, writeSnapshotImage, writeSnapshotPages } from './snapshot-pages';
import { PageSums, writePageSums } from './snapshot-sums';
import type { RejectionRetention } from '../retention-bounds';
import type { Sql } from './sql';

export interface SqljsStorageOptions {
  dataDir: string;
  /** sql.js's `sql-wasm.wasm`; by default the one in node_modules (the desktop app passes its own). */
  wasmPath?: string;
  /** Take a snapshot once the journal passes this size. Default 64 MiB. */
  snapshotThresholdBytes?: number;
  log?: (msg: string) => void;
  /** How often coalesced API-key last-used times are journaled. Default 5 s. */
  touchFlushIntervalMs?: number;
  /** File operations; tests inject failures and count fsyncs through this. */
  fs?: StorageFs;
  /** The most data the database takes before refusing writes that add data (capacity.ts). Default 3 GiB. */
  capacityLimitBytes?: number;
  /** Pruning of the rejected-statement log (retention.ts); off unless given. */
  rejectionRetention?: RejectionRetention;
  /**
   * Keep the journal files written since the newest backup, even once a snapshot covers them:
   * restoring that backup then replays them (`npm run restore -- --replay-journal`) and loses
   * nothing after a damaged snapshot. The service sets it when backups are scheduled. Until this
   * process has written a backup, every covered file is kept.
   */
  keepJournalSinceBackup?: boolean;
}

const DEFAULT_SNAPSHOT_THRESHOLD_BYTES = 64 * 1024 * 1024;
const DEFAULT_TOUCH_FLUSH_INTERVAL_MS = 5_000;
/** After a failed flush, the disk is retried after this delay, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;
const PROBE_BYTES = new Uint8Array(64 * 1024);

interface DatabaseInit {
  options: SqljsStorageOptions;
  SQL: SqlJsStatic;
  fs: StorageFs;
  dataDir: string;
  lock: DataDirLock;
  log: (msg: string) => void;
  loaded: LoadedDatabase;
}

export class DurableDatabase {
  readonly dataDir: string;
  private readonly SQL: SqlJsStatic;
  private readonly fs: StorageFs;
  private readonly lock: DataDirLock;
  private readonly log: (msg: string) => void;
  private readonly snapshotThresholdBytes: number;
  private readonly touchTimer: NodeJS.Timeout;
  // The loaded database; replaced as a whole when a failed flush makes it reload.
  private applyState!: ApplyState;
  /** The pages changed since the snapshot on disk: what the next snapshot writes. */
  private changes!: FileChanges;
  private writer!: JournalWriter;
  /** The journal seq of the newest record applied. */
  private journalSeq = 0;
  /**
   * The highest statement/rejection seq whose journal record is durable. Writes are applied in
   * memory before their record reaches the disk (the write path needs them there to check the
   * next batch), so reads cap themselves at this seq: no read shows a statement a crash or a
   * failed flush could still take away.
   */
  private durableSeq = 0;
  /** The page sums of the snapshot on disk (snapshot-sums.ts). */
  private sums: PageSums | null = null;
  private readonly keepJournalSinceBackup: boolean;
  /** Journal files a snapshot covers, kept for a restore of the newest backup (keepJournalSinceBackup). */
  private retainedJournals: string[] = [];
  /** The journal seq the newest backup this process wrote holds; null before the first. */
  private backupSeq: number | null = null;
  /** The journal seq the snapshot on disk holds. */
  private snapshotSeq = 0;
  private snapshotExists = false;
  /** Journal files before the current one, deleted once a snapshot covers them. */
  private olderJournals: string[] = [];
  /** API-key last-used times applied in memory but not journaled yet. */
  private readonly pendingTouches = new Map<string, string>();
  private snapshotting: Promise<void> | null = null;
  private snapshotScheduled = false;
  private closing: Promise<void> | null = null;
  /** The database whose write group (joinWriteGroup) is open, until it commits. */
  private writeGroup: Sql | null = null;
  /** Set from a failed flush until the database has reloaded and the disk takes writes again. */
  private failure: StorageUnavailableError | null = null;
  /** The in-memory database holds changes that never reached the disk: reload before writing. */
  private stale = false;
  private recovering: Promise<void> | null = null;
  private retryDelayMs = RETRY_MIN_MS;
  private nextRetryAt = 0;

  /** Opens (creating when needed) the data directory: lock, snapshot, journal replay. */
  static async open(options: SqljsStorageOptions): Promise<DurableDatabase> {
    const log = options.log ?? (() => {});
    const fs = options.fs ?? nodeStorageFs;
    const dataDir = path.resolve(options.dataDir);
    await fs.mkdir(dataDir);
    const lock = await lockDataDir(dataDir, log);
    try {
      const SQL = await loadSqlJs(options.wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
      // Left by a snapshot interrupted before its rename (the previous snapshot is still whole), or
      // by a disk probe interrupted by a crash.
      await fs.unlink(path.join(dataDir, SNAPSHOT_TEMP_FILE));
      await fs.unlink(path.join(dataDir, PROBE_FILE));
      const loaded = await loadDatabase({ SQL, fs, dataDir, log, durableSizes: new Map() });
      return new DurableDatabase({ options, SQL, fs, dataDir, lock, log, loaded });
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  private constructor(init: DatabaseInit) {
    this.dataDir = init.dataDir;
    this.SQL = init.SQL;
    this.fs = init.fs;
    this.lock = init.lock;
    this.log = init.log;
    this.snapshotThresholdBytes = init.options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD_BYTES;
    this.keepJournalSinceBackup = init.options.keepJournalSinceBackup ?? false;
    this.install(init.loaded);
    this.touchTimer = setInterval(() => {
      this.flushTouches().catch((err: unknown) => this.log(`could not journal API-key last-used times: ${String(err)}`));
    }, init.options.touchFlushIntervalMs ?? DEFAULT_TOUCH_FLUSH_INTERVAL_MS);
    this.touchTimer.unref();
  }

  private install(loaded: LoadedDatabase): void {
    // A group open on the database being replaced goes with it (its records replay from the journal).
    this.writeGroup = null;
    this.applyState = loaded.state;
    this.changes = loaded.changes;
    this.journalSeq = loaded.journalSeq;
    // Everything loaded came from the disk.
    this.durableSeq = loaded.state.lastSeq;
    this.snapshotSeq = loaded.snapshotSeq;
    this.snapshotExists = loaded.snapshotExists;
    this.sums = loaded.sums;
    // Kept files are older files again: the next snapshot decides about them anew.
    this.olderJournals = loaded.older;
    this.retainedJournals = [];
    this.writer = new JournalWriter({
      fs: this.fs,
      dir: this.dataDir,
      ...loaded.current,
      onFlushed: () => this.maybeScheduleSnapshot(),
      onFailed: (failure) => this.onJournalFailure(failure),
    });
    // Last-used times not journaled yet were applied to the database being replaced.
    applyOp(this.applyState, { t: 'touchApiKeys', touches: [...this.pendingTouches] });
  }

  /** The database and its lookups as they are now (a reload replaces them: do not keep them across an await). */
  get state(): ApplyState {
    return this.applyState;
  }

  get sql(): Sql {
    return this.applyState.sql;
  }

  /** Bytes in the current journal file (what the snapshot threshold is compared with). */
  get journalBytes(): number {
    return this.writer.currentBytes;
  }

  /** Bytes of the database image: what a snapshot writes. */
  get databaseBytes(): number {
    const [pages, pageSize] = this.sql.first('SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()')!;
    return (pages as number) * (pageSize as number);
  }

  assertOpen(): void {
    if (this.closing) throw new StorageUnavailableError('the storage is closed');
  }

  /** Resolves when writes are taken: open, and no flush failure left (retrying the disk when due). */
  async writable(): Promise<void> {
    this.assertOpen();
    if (!this.failure) return;
    if (this.recovering || Date.now() < this.nextRetryAt) throw this.failure;
    await this.recover();
  }

  /** The write path: apply, then queue the record and wait for it to be durable. */
  commit(op: Op): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const j = this.journalSeq + 1;
    const record = encodeRecord({ j, op });
    this.joinWriteGroup();
    try {
      applyOpInTransaction(this.applyState, op);
    } catch (err) {
      loadCaches(this.applyState);
      throw err;
    }
    this.journalSeq = j;
    const seq = this.applyState.lastSeq;
    // Before the caller hears of it: a read the caller makes next sees its write.
    return this.writer.append(record).then(() => {
      if (seq > this.durableSeq) this.durableSeq = seq;
    });
  }

  /**
   * The writes of one turn of the event loop are applied in one SQL transaction, each operation a
   * savepoint of it (sql.ts, beginGroup): concurrent requests then pay one BEGIN/COMMIT and write
   * the pages they share once, as their journal records share one write and one fdatasync. The
   * group commits when the turn is over, or at once before anything takes an image of the file.
   */
  private joinWriteGroup(): void {
    if (this.writeGroup) return;
    const sql = this.sql;
    sql.beginGroup();
    this.writeGroup = sql;
    setImmediate(() => {
      if (this.writeGroup === sql) this.endWriteGroup();
    });
  }

  /**
   * Commits the open write group. Its records are queued in the journal already, so a COMMIT that
   * fails (SQLite out of memory) must not cost them: the database reloads the durable state, which
   * replays them, and refuses writes meanwhile, as after a failed flush.
   */
  private endWriteGroup(): void {
    const sql = this.writeGroup;
    if (!sql) return;
    this.writeGroup = null;
    try {
      sql.endGroup();
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.onJournalFailure(new StorageUnavailableError(`cannot apply writes in memory (${reason})`, { cause: err }));
    }
  }

  /** The highest statement/rejection seq applied in memory: above visibleSeq while its record is being written. */
  get appliedSeq(): number {
    return this.applyState.lastSeq;
  }

  /** The highest statement/rejection seq a read may show: its record is on disk. */
  get visibleSeq(): number {
    return this.durableSeq;
  }

  /**
   * Writes the derived rows that wait in memory (ingestion counts, ingestion.ts) to the database:
   * before anything reads them, and before an image of the database is taken.
   */
  flushDerived(): void {
    flushDerived(this.applyState);
  }

  /** Resolves once every record queued so far is durable. */
  durable(): Promise<void> {
    return this.writer.sync();
  }

  /**
   * The per-request "key used" mark: applied in memory at once and journaled in one record per
   * interval (touchFlushIntervalMs) for all keys, instead of one durable write per request. A crash
   * loses at most that interval of last-used times. It never fails for a full disk.
   */
  touchApiKey(id: string, lastUsedAt: string): void {
    // Outside a transaction, as replay applies it: each touch is one statement that only moves forward.
    applyOp(this.applyState, { t: 'touchApiKeys', touches: [[id, lastUsedAt]] });
    this.noteTouch(id, lastUsedAt);
  }

  /**
   * Writes the database image to `lore.sqlite` and starts a new journal file. Resolves once the
   * image is durable and the journal files it covers are deleted.
   */
  async snapshot(): Promise<void> {
    this.assertOpen();
    await this.takeSnapshot();
  }

  /**
   * Journals the coalesced last-used times and waits until every write so far is durable and no
   * snapshot is under way: the files then hold everything, as a backup copy of them would need.
   */
  async flush(): Promise<void> {
    this.assertOpen();
    await this.flushTouches();
    await this.writer.sync();
    while (this.snapshotScheduled || this.snapshotting) {
      await (this.snapshotting?.catch(() => {}) ?? new Promise((resolve) => setImmediate(resolve)));
    }
  }

  /**
   * The database image as a snapshot would write it now (backup.ts): taken after the coalesced
   * last-used times are journaled, synchronously like the snapshot's, and resolved only once every
   * write it holds is durable (a flush failure rejects rather than hand out writes that failed).
   */
  async exportImage(): Promise<Uint8Array> {
    await this.flush();
    if (this.failure) throw this.failure;
    this.endWriteGroup();
    if (this.failure) throw this.failure;
    this.flushDerived();
    writeMeta(this.sql, { journalSeq: this.journalSeq, lastSeq: this.applyState.lastSeq }, this.applyState.counts);
    const image = this.sql.exportImage();
    this.sql.resetCache();
    await this.writer.sync();
    return image;
  }

  /**
   * Copies the snapshot file, first brought up to date, to `dest` (backup-file.ts): the snapshot
   * is written the usual way (changed pages; writes go on meanwhile), then kept from changing
   * until the copy has read it, by holding the next snapshot back. No writer waits for the copy,
   * whatever the database's size. The copy holds every write acknowledged before the call;
   * resolves with the journal seq it holds.
   */
  async copySnapshotTo(dest: string): Promise<number> {
    this.assertOpen();
    await this.flushTouches();
    if (this.failure) throw this.failure;
    while (this.snapshotting) await this.snapshotting.catch(() => {});
    const copy = (async () => {
      await this.writeSnapshot();
      await fsp.copyFile(path.join(this.dataDir, SNAPSHOT_FILE), dest);
      return this.snapshotSeq;
    })();
    this.snapshotting = copy.then(
      () => {},
      () => {},
    ).finally(() => {
      this.snapshotting = null;
    });
    return copy;
  }

  async close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    clearInterval(this.touchTimer);
    try {
      await this.flushTouches();
      await this.takeSnapshot(true);
    } finally {
      // A snapshot or a reload may still be under way: let it finish before closing files.
      await this.snapshotting?.catch(() => {});
      await this.recovering?.catch(() => {});
      await this.writer.close();
      this.endWriteGroup();
      this.changes.dispose();
      this.sql.close();
      await this.lock.release();
    }
  }

  // Snapshots

  /** `recover`: after a failed flush, reload and retry the disk first (close does) instead of failing. */
  private async takeSnapshot(recover = false): Promise<void> {
    if (this.failure) {
      if (!recover) throw this.failure;
      await this.recover();
    }
    while (this.snapshotting) await this.snapshotting.catch(() => {});
    this.snapshotting = this.writeSnapshot().finally(() => {
      this.snapshotting = null;
    });
    // Writes go on during a snapshot: when they carried the new journal past the threshold
    // meanwhile, the next snapshot follows, rather than waiting for a write that may not come.
    // Only after a success: a snapshot that fails is not retried in a loop.
    void this.snapshotting.then(
      () => this.maybeScheduleSnapshot(),
      () => {},
    );
    return this.snapshotting;
  }

  private async writeSnapshot(): Promise<void> {
    if (this.failure) throw this.failure;
    const journalSeq = this.journalSeq;
    if (this.snapshotIsCurrent(journalSeq)) return;
    // Synchronous from here to the rotation: no write can slip between the image and the new file.
    // The file must hold every applied write first: the open group's are still in SQLite's cache.
    this.endWriteGroup();
    if (this.failure) throw this.failure;
    this.flushDerived();
    writeMeta(this.sql, { journalSeq, lastSeq: this.applyState.lastSeq }, this.applyState.counts);
    if (this.snapshotExists) await this.writeChangedPages(journalSeq);
    else await this.writeWholeImage(journalSeq);
  }

  /**
   * The first snapshot of a data directory: the whole image, to the temp file, renamed over the
   * snapshot once durable. Its pages are frozen, not copied, and read from the live file as they
   * are written, like the changed pages of a later snapshot.
   */
  private async writeWholeImage(journalSeq: number): Promise<void> {
    const started = performance.now();
    // Changes from here on are changes to this image (until it is on disk snapshotExists stays
    // false, so a failed snapshot is followed by a whole one again).
    const image = this.changes.takeWhole(this.databaseBytes);
    const { covered, previousDurable } = this.rotateJournalAfter(journalSeq);
    try {
      // The image may hold records still in flight: it must not become the snapshot before they are durable.
      await previousDurable;
      const pageSums = new Uint32Array(image.pages.length);
      await writeSnapshotImage(this.fs, this.dataDir, image, PageSums.ofRun(image.pages, image.fileBytes, pageSums));
      await this.sumsWritten(new PageSums(journalSeq, image.fileBytes, pageSums));
    } finally {
      this.changes.release();
    }
    await this.snapshotWritten(journalSeq, covered);
    this.log(`snapshot written: ${image.fileBytes} bytes, journal seq ${journalSeq}, ${Math.round(performance.now() - started)} ms`);
  }

  /**
   * Every later snapshot: only the pages changed since the last one (file-changes.ts), frozen
   * synchronously and read from the live file as they are written (a page written meanwhile is
   * kept aside first), into the snapshot in place through a durable pages file
   * (snapshot-pages.ts). Writes and reads go on throughout.
   */
  private async writeChangedPages(journalSeq: number): Promise<void> {
    const started = performance.now();
    const changes = this.changes;
    const changed = changes.take(this.databaseBytes);
    const { covered, previousDurable } = this.rotateJournalAfter(journalSeq);
    try {
      // The pages may hold records still in flight: they must not reach the snapshot before those are durable.
      await previousDurable;
      if (this.sums?.journalSeq === journalSeq) {
        // A second snapshot at the same journal seq (its journal files could not be deleted the
        // first time; in-memory last-used marks changed pages since): the sums on disk name this
        // seq but not these pages. They go first, so a crash in between leaves no sums (checked
        // with quick_check at open) rather than sums that would call the snapshot damaged.
        await this.fs.unlink(path.join(this.dataDir, SNAPSHOT_SUMS_FILE));
        await this.fs.syncDir(this.dataDir);
      }
      const pageSums = new Uint32Array(changed.pages.length);
      await writeSnapshotPages(this.fs, this.dataDir, changed, PageSums.ofRun(changed.pages, changed.fileBytes, pageSums));
      // The sums of the snapshot the pages file completes, before a page of it reaches
      // lore.sqlite: a crash while the pages are written in leaves sums that describe the snapshot
      // the next open finishes, so damage elsewhere in the file is still told by its sums (not
      // left to quick_check, which does not see every damaged page).
      if (this.sums) await this.sumsWritten(this.sums.afterChanges(journalSeq, changed.fileBytes, changed.pages, pageSums));
      await applySnapshotPages(this.fs, this.dataDir, changed);
    } catch (err) {
      // The snapshot may hold some of them now (a complete pages file says which, and the next
      // open writes it): the next snapshot writes them all again, with whatever changed since.
      changes.markAgain(changed.pages);
      throw err;
    } finally {
      changes.release();
    }
    await this.snapshotWritten(journalSeq, covered);
    this.log(
      `snapshot written: ${changed.pages.length} changed pages (${changed.pages.length * PAGE_BYTES} bytes) of ${changed.fileBytes}, ` +
        `journal seq ${journalSeq}, ${Math.round(performance.now() - started)} ms`,
    );
  }

  /** The snapshot on disk already holds `journalSeq` and no older journal file is left. */
  private snapshotIsCurrent(journalSeq: number): boolean {
    return journalSeq === this.snapshotSeq && this.olderJournals.length === 0 && this.snapshotExists;
  }

  /**
   * Synchronously sends later records to a new journal file, after record `journalSeq`. Returns the
   * files a snapshot of `journalSeq` covers, and when the records in them are all durable.
   */
  private rotateJournalAfter(journalSeq: number): { covered: string[]; previousDurable: Promise<void> } {
    const nextJournal = path.join(this.dataDir, journalFileName(journalSeq + 1));
    // The current file already starts after the image when nothing was written since the last rotation.
    const rotate = nextJournal !== this.writer.currentPath;
    const covered = rotate ? [...this.olderJournals, this.writer.currentPath] : [...this.olderJournals];
    this.olderJournals = covered;
    return { covered, previousDurable: rotate ? this.writer.rotate(nextJournal) : this.writer.sync() };
  }

  /**
   * Keeps the new snapshot's page sums and writes them beside it. A failure is logged, not thrown:
   * the snapshot is whole, and the next open finds the sums stale and checks it another way.
   */
  private async sumsWritten(sums: PageSums): Promise<void> {
    this.sums = sums;
    try {
      await writePageSums(this.fs, this.dataDir, sums);
    } catch (err) {
      this.log(`could not write the snapshot's page checksums: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * The snapshot on disk holds `journalSeq`: the journal files it covers go, but for those a
   * restore of the newest backup still needs (keepJournalSinceBackup).
   */
  private async snapshotWritten(journalSeq: number, covered: string[]): Promise<void> {
    this.snapshotSeq = journalSeq;
    this.snapshotExists = true;
    const kept = this.keepJournalSinceBackup ? covered.filter((file) => !this.backupHolds(file)) : [];
    // From here a crash leaves old journal files beside the new snapshot: replay skips their records.
    for (const file of covered) if (!kept.includes(file)) await this.fs.unlink(file);
    this.olderJournals = this.olderJournals.filter((file) => !covered.includes(file));
    this.retainedJournals = [...new Set([...this.retainedJournals, ...kept])].sort();
  }

  /**
   * A backup holding journal records up to `journalSeq` was written (backup-file.ts): the kept
   * journal files it holds whole are no longer needed.
   */
  async backupWritten(journalSeq: number): Promise<void> {
    this.backupSeq = Math.max(this.backupSeq ?? 0, journalSeq);
    const done = this.retainedJournals.filter((file) => this.backupHolds(file));
    this.retainedJournals = this.retainedJournals.filter((file) => !done.includes(file));
    for (const file of done) await this.fs.unlink(file);
  }

  /** Whether the newest backup holds every record of a journal file (it ends where the next file starts). */
  private backupHolds(file: string): boolean {
    if (this.backupSeq === null) return false;
    const files = [...new Set([...this.retainedJournals, ...this.olderJournals, this.writer.currentPath])].sort();
    const next = files[files.indexOf(file) + 1];
    return next !== undefined && journalFirstSeq(next) - 1 <= this.backupSeq;
  }

  private maybeScheduleSnapshot(): void {
    if (this.snapshotScheduled || this.snapshotting || this.closing) return;
    if (this.writer.currentBytes < this.snapshotThresholdBytes) return;
    this.snapshotScheduled = true;
    // Off the request path: the flush that crossed the threshold has already answered its writers.
    setImmediate(() => {
      this.snapshotScheduled = false;
      if (this.closing) return;
      this.takeSnapshot().catch((err: unknown) => this.log(`snapshot failed: ${String(err)}`));
    });
  }

  private async flushTouches(): Promise<void> {
    if (this.pendingTouches.size === 0 || this.failure) return;
    const touches = [...this.pendingTouches];
    this.pendingTouches.clear();
    try {
      await this.commit({ t: 'touchApiKeys', touches });
    } catch (err) {
      // Kept for the next interval (and re-applied if the failure makes the database reload).
      for (const [id, lastUsedAt] of touches) this.noteTouch(id, lastUsedAt);
      throw err;
    }
  }

  private noteTouch(id: string, lastUsedAt: string): void {
    const previous = this.pendingTouches.get(id);
    if (previous === undefined || previous < lastUsedAt) this.pendingTouches.set(id, lastUsedAt);
  }

  // When the disk fails

  /**
   * A flush failed. Its writes were applied in memory but their callers are told
   * StorageUnavailableError, so they must not survive: the database reloads the durable state
   * (snapshot + journal up to the last durable byte) at once, so reads stop showing them, and
   * refuses writes until a probe shows the disk takes writes again.
   */
  private onJournalFailure(failure: StorageUnavailableError): void {
    if (this.failure) return;
    this.failure = failure;
    this.stale = true;
    this.nextRetryAt = 0;
    this.log(`${failure.message}; writes are refused until the disk takes them again`);
    if (!this.closing) this.recover().catch(() => {});
  }

  /** Reloads when needed, then probes the disk; clears the failure when both work. */
  private recover(): Promise<void> {
    this.recovering ??= (async () => {
      try {
        if (this.stale) await this.reload();
        await writeFileDurably(this.fs, path.join(this.dataDir, PROBE_FILE), PROBE_BYTES);
        await this.fs.unlink(path.join(this.dataDir, PROBE_FILE));
      } catch (err) {
        this.nextRetryAt = Date.now() + this.retryDelayMs;
        this.log(`storage still unavailable (${err instanceof Error ? err.message : String(err)}); next try in ${this.retryDelayMs} ms`);
        this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_MAX_MS);
        throw this.failure ?? err;
      }
      this.failure = null;
      this.retryDelayMs = RETRY_MIN_MS;
      this.log('the disk takes writes again');
    })().finally(() => {
      this.recovering = null;
    });
    return this.recovering;
  }

  private async reload(): Promise<void> {
    // A snapshot deletes journal files the reload reads: let it finish (it fails with the writer).
    await this.snapshotting?.catch(() => {});
    await this.writer.close();
    // Bytes past a file's durable size hold records whose callers were told they failed.
    const durableSizes = this.writer.durableSizes();
    const loaded = await loadDatabase({ SQL: this.SQL, fs: this.fs, dataDir: this.dataDir, log: this.log, durableSizes });
    this.changes.dispose();
    this.sql.close();
    this.install(loaded);
    this.stale = false;
    this.log(`reloaded the durable state (journal seq ${loaded.journalSeq})`);
    // Cut them off the files too, so a crash cannot bring them back. On a sick disk this may fail:
    // the new writer cuts them before its first write anyway.
    for (const [file, size] of durableSizes) {
      try {
        await truncateDurably(this.fs, file, size);
      } catch {
        // Best effort, see above.
      }
    }
  }
}
