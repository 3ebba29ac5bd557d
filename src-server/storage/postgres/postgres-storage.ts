/**
 * The Storage on PostgreSQL, for deployments past one laptop: any number of service processes on
 * one database. Every write is one transaction, answered only after its COMMIT (with
 * synchronous_commit on, so it is on the server's disk); reads see committed rows only. Races
 * between processes are decided by the database: unique constraints, row locks, and transactions
 * run again when they lose (database.ts). Nothing a request depends on lives only in one
 * process's memory, except the last-used marks of API keys, written coalesced (below).
 *
 * This class only composes: each domain module holds its SQL. The schema is migrations.ts.
 */
import type {
  ImportJobRecord,
  ActivityRecord,
  ApiKeyPatch,
  ApiKeyRecord,
  DisplayNames,
  DocumentContent,
  DocumentKey,
  DocumentSet,
  ExplorerPage,
  ExplorerQuery,
  IngestionQuery,
  NamedValue,
  NameQuery,
  WordsQuery,
  IngestionStats,
  InsertStatementsResult,
  RefusalPage,
  RefusalQuery,
  RefusalRow,
  RejectionRow,
  ReadBounds,
  StatementWithConsistentThrough,
  StatementPage,
  StatementQuery,
  StatementRow,
  Storage,
  StorageStats,
  StoreRecord,
  StoredDocument,
  StoredRefusal,
  StoredStatement,
  StorageChange,
  LaunchRecord,
  PackageRecord,
  DocumentWriteRow,
  StoredDocumentWrite,
} from '../storage';
import { StorageNotFoundError } from '../errors';
import { refusalFields } from '../row-values';
import { DEFAULT_RETENTION_BOUNDS, DEFAULT_RETENTION_INTERVAL_MS } from '../retention-bounds';
import type { RejectionRetention } from '../retention-bounds';
import type { DeadLetterRecord, ForwardableStatement, ForwarderPatch, ForwarderRecord, ForwarderSettlement } from '../forwarders';
import { PostgresForwarders } from './forwarders';
import { withAdminRecords } from '../portable-admin';
import type { PortableRecord } from '../portable';
import {
  deletePackageRows,
  discardPackageFileRows,
  findLaunchRow,
  findPackageRow,
  insertDocumentWriteRow,
  insertLaunchRow,
  listDocumentWriteRows,
  insertPackageRow,
  listLaunchRows,
  listPackageRows,
  readPackageFileRow,
  redeemLaunchFetchRow,
  setPackageReferenceRow,
  writePackageFileRow,
} from './bench';
import { ChangeFeed } from './change-feed';
import { ChangeAnnouncer } from './change-announcer';
import { MissedRecords } from './missed-records';
import { DirectoryCache } from './directory-cache';
import { exportPostgresRecords } from './export-records';
import { PostgresDatabase } from './database';
import type { PostgresPoolOptions, Tx } from './database';
import { deleteDocumentRow, deleteDocumentRows, findDocumentRow, listDocumentIdRows, upsertDocumentRow } from './documents';
import { insertRejectionRows, searchExplorerRows } from './explorer';
import { keepActivityNames, lookupNameRows, matchNameRows } from './explorer-names';
import { behindStoreTotal, displayNameRows, dropStoreTotal, foldIngestionRows, holdFold, ingestionReportRows, storeCountRows } from './ingestion';
import { migrate } from './migrations';
import {
  deleteStoreRows,
  findApiKeyRow,
  findStoreRow,
  insertApiKeyRow,
  insertStoreRow,
  listApiKeyRows,
  listStoreRows,
  touchApiKeyRows,
  updateApiKeyRow,
  updateStoreRow,
} from './records';
import type { StorePatch } from './records';
import { consistentThroughOf, readBounds, settledSeq } from './record-seq';
import { ProcessRegistry } from './process-registry';
import { StampWatermark } from './stamp-watermark';
import { pruneLogs } from './retention';
import type { ErasureCounts, ErasureOutcome, ErasureRecord, ErasureRequest, RetentionCutoffs, RetentionStepResult } from '../erasure';
import { eraseAgentsTx, insertErasureRow, listErasureRows, reapplyErasureTx, retentionStepTx } from './erasure';
import { insertRefusalRows, listRefusalRows, SERVICE_WIDE } from './refusals';
import { claimImportJobRow, findImportJobRow, listImportJobRows, putImportJobRow } from './import-jobs';
import { insertAuditRow, listAuditRows, pruneAuditRows } from './audit-log';
import type { AuditPage, AuditQuery, AuditRow, StoredAuditEntry } from '../audit';
import { insertStatementRows } from './statement-writes';
import { StatementFastWrites } from './statement-fast-writes';
import { StatementWriteGroups, type WriteGroupLimits } from './statement-write-groups';
import { findAttachmentRows, findStatementRow, findStatementRowWithLease, queryStatementRows } from './statement-reads';

export interface PostgresStorageOptions extends PostgresPoolOptions {
  /** Pruning of the rejected log and the logs of refused requests; off unless given (as on sql.js). */
  rejectionRetention?: RejectionRetention;
  /** How often coalesced last-used marks of API keys are written, ms (default 5 s). */
  touchFlushIntervalMs?: number;
  /** How often old ingestion rows are folded together, ms (default 60 s). */
  foldIntervalMs?: number;
  /** How often the records other processes did not announce are looked for, ms (default 1 s; missed-records.ts). */
  missedRecordsIntervalMs?: number;
  /** Awaited just before each write's COMMIT: tests hold writes short of durable there. */
  beforeCommit?: () => Promise<void>;
  /** How concurrent plain writes to one Store are gathered into one call (statement-write-groups.ts). */
  writeGroups?: WriteGroupLimits;
  log?: (message: string) => void;
}

/** One fold in this many looks at every period of the console's counts; the others at the recent ones (ingestion.ts). */
const FOLD_ALL_EVERY = 60;

/** How often a plain insert of statements is tried in one round trip before the general path takes it. */
const FAST_WRITE_ATTEMPTS = 3;

const EMPTY_INGESTION: IngestionStats = { series: [], totals: { accepted: 0, voided: 0, rejected: 0 }, topVerbs: [], topActivities: [] };

/** Connects, brings the schema up to date (migrations.ts) and starts the background work. */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const db = new PostgresDatabase(options);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const storage = new PostgresStorage(db, options);
  await storage.start();
  return storage;
}

export class PostgresStorage implements Storage {
  /** Last-used marks not yet written, by key id: one UPDATE per interval, not one per request. */
  private readonly touches = new Map<string, string>();
  private readonly timers: NodeJS.Timeout[] = [];
  /** Notifications between the processes sharing the database (change-feed.ts). */
  private readonly changes: ChangeFeed;
  /** This process's writes of statements, rejections and refusals, told to the others after their COMMIT (change-announcer.ts). */
  private readonly announcer: ChangeAnnouncer;
  /** The others' records no announcement told of, found by looking (missed-records.ts). */
  private readonly missed: MissedRecords;
  /** The processes sharing the database, by heartbeat (process-registry.ts). */
  private readonly processes: ProcessRegistry;
  /** This process's floor of stored times in flight, for the others (stamp-watermark.ts). */
  private readonly watermark: StampWatermark;
  /** Stores and keys as last read, kept while the change feed listens (directory-cache.ts). */
  private readonly directory: DirectoryCache;
  private closed = false;
  /** Forwarders, dead letters and leases (forwarders.ts). */
  private readonly forwarders: PostgresForwarders;
  /** Plain inserts of statements in one round trip (statement-fast-writes.ts). */
  private readonly fastWrites: StatementFastWrites;
  /** Concurrent plain writes to one Store, gathered into one call (statement-write-groups.ts). */
  private readonly writeGroups: StatementWriteGroups;

  constructor(
    readonly db: PostgresDatabase,
    private readonly options: PostgresStorageOptions,
  ) {
    const log = options.log ?? (() => {});
    this.changes = new ChangeFeed(options.url, log);
    this.announcer = new ChangeAnnouncer(db, this.changes.origin, log);
    this.processes = new ProcessRegistry(db, this.changes.origin, log);
    this.watermark = new StampWatermark(options.url, log);
    this.directory = new DirectoryCache(() => this.changes.listening);
    this.forwarders = new PostgresForwarders(db, (storeId) => this.read(storeId, null, async (num) => num));
    this.fastWrites = new StatementFastWrites(db, options.beforeCommit);
    this.writeGroups = new StatementWriteGroups(this.fastWrites, options.writeGroups);
    this.missed = new MissedRecords(db, (change) => this.changes.tellHere(change), log);
    this.changes.onLost(() => this.directory.clear());
    this.changes.subscribe((change) => {
      if (change.kind === 'directory') this.directory.clear();
      if (change.kind === 'records') this.missed.cover(change.fromSeq, change.toSeq);
    });
    const every = (ms: number, work: () => Promise<void>, what: string) => {
      const timer = setInterval(() => void work().catch((err: unknown) => log(`${what}: ${String(err)}`)), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(options.touchFlushIntervalMs ?? 5_000, () => this.flushTouches(), 'could not record when API keys were last used');
    every(options.missedRecordsIntervalMs ?? 1_000, () => this.missed.look(), 'could not look for records not announced');
    // The recent periods at each interval (by index); every period at the first and each sixtieth.
    let folds = 0;
    every(options.foldIntervalMs ?? 60_000, () => foldIngestionRows(this.db, folds++ % FOLD_ALL_EVERY === 0 ? 'all' : 'recent'), 'could not fold the ingestion statistics');
    if (options.rejectionRetention) {
      // Soon after open, then periodically, as on sql.js.
      const first = setTimeout(() => void this.pruneLogs().catch((err: unknown) => log(`could not prune the rejected log and the refusals: ${String(err)}`)), 5_000);
      first.unref();
      this.timers.push(first);
      every(options.rejectionRetention.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS, async () => void (await this.pruneLogs()), 'could not prune the rejected log and the refusals');
    }
  }

  private write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.db.transaction(work, this.options.beforeCommit);
  }

  /** The Store's number for a write, locked against its deletion until the transaction ends. */
  private async storeNumFor(tx: Tx, storeId: string): Promise<number> {
    const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR SHARE', [storeId]);
    const num = rows[0]?.num;
    if (num === undefined) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
    return num;
  }

  /** A read of one Store's rows; `none` for a Store that does not exist. */
  private async read<T>(storeId: string, none: T, read: (storeNum: number) => Promise<T>): Promise<T> {
    const store = await this.directory.store('id', storeId, () => findStoreRow(this.db, 'id', storeId));
    return store ? read(store.num) : none;
  }

  // Forwarders (forwarders.ts)

  insertForwarder(record: ForwarderRecord): Promise<void> {
    return this.forwarders.insert(record);
  }

  listForwarders(storeId?: string): Promise<ForwarderRecord[]> {
    return this.forwarders.list(storeId);
  }

  findForwarder(id: string): Promise<ForwarderRecord | null> {
    return this.forwarders.find(id);
  }

  updateForwarder(id: string, patch: ForwarderPatch): Promise<boolean> {
    return this.forwarders.update(id, patch);
  }

  settleForwarderBatch(id: string, settlement: ForwarderSettlement, leaseOwner?: string): Promise<boolean> {
    return this.forwarders.settle(id, settlement, leaseOwner);
  }

  deleteForwarder(id: string): Promise<boolean> {
    return this.forwarders.delete(id);
  }

  listDeadLetters(forwarderId: string): Promise<DeadLetterRecord[]> {
    return this.forwarders.deadLetters(forwarderId);
  }

  requeueDeadLetters(forwarderId: string, ids?: readonly number[]): Promise<number> {
    return this.forwarders.requeue(forwarderId, ids);
  }

  readForwardable(storeId: string, range: { afterSeq: number; throughSeq?: number; limit: number }): Promise<ForwardableStatement[]> {
    checkLimit(range.limit);
    return this.forwarders.read(storeId, range);
  }

  countForwardable(storeId: string, afterSeq: number): Promise<number> {
    return this.forwarders.count(storeId, afterSeq);
  }

  leaseForwarder(id: string, owner: string, ms: number): Promise<boolean> {
    return this.forwarders.lease(id, owner, ms);
  }

  releaseForwarder(id: string, owner: string): Promise<void> {
    return this.forwarders.release(id, owner);
  }

  // Stores and API keys (records.ts)

  /** In a write of Stores or keys: every process forgets what it kept of them (directory-cache.ts). */
  private readonly directoryChanged = async (tx: Tx): Promise<void> => {
    this.directory.clear();
    await this.changes.notify(tx, { kind: 'directory' });
  };

  /** Runs a write of Stores or keys, then forgets what this process kept of them. */
  private async directoryWrite(write: Promise<void>): Promise<void> {
    try {
      await write;
    } finally {
      this.directory.clear();
    }
  }

  insertStore(store: StoreRecord): Promise<void> {
    return this.directoryWrite(insertStoreRow(this.db, store, this.directoryChanged));
  }

  async findStoreBySlug(slug: string): Promise<StoreRecord | null> {
    return withoutNum(await this.directory.store('slug', slug, () => findStoreRow(this.db, 'slug', slug)));
  }

  async findStoreById(id: string): Promise<StoreRecord | null> {
    return withoutNum(await this.directory.store('id', id, () => findStoreRow(this.db, 'id', id)));
  }

  async listStores(): Promise<StoreRecord[]> {
    return (await listStoreRows(this.db)).map((store) => withoutNum(store)!);
  }

  updateStore(id: string, patch: StorePatch): Promise<void> {
    return this.directoryWrite(updateStoreRow(this.db, id, patch, this.directoryChanged));
  }

  deleteStore(id: string): Promise<void> {
    return this.directoryWrite(
      this.write(async (tx) => {
        const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR UPDATE', [id]);
        if (!rows[0]) return;
        await holdFold(tx);
        await deleteStoreRows(tx, rows[0].num, true);
        await this.directoryChanged(tx);
      }),
    );
  }

  insertApiKey(key: ApiKeyRecord): Promise<void> {
    return this.directoryWrite(insertApiKeyRow(this.db, key, this.directoryChanged));
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    return this.withTouch(await this.directory.apiKey(id, () => findApiKeyRow(this.db, id)));
  }

  async listApiKeys(storeId: string): Promise<ApiKeyRecord[]> {
    return (await listApiKeyRows(this.db, storeId)).map((key) => this.withTouch(key)!);
  }

  /**
   * A patch of only a (non-null) `lastUsedAt` is the per-request "key used" mark: kept in memory
   * and written coalesced every `touchFlushIntervalMs` (and on close), so a request does not
   * cost a write. A crash loses at most that interval of last-used times, as on sql.js.
   */
  async updateApiKey(id: string, patch: ApiKeyPatch): Promise<void> {
    const defined = Object.entries(patch).filter(([, value]) => value !== undefined);
    if (defined.length === 1 && defined[0]![0] === 'lastUsedAt' && typeof patch.lastUsedAt === 'string') {
      if (!(await this.directory.apiKey(id, () => findApiKeyRow(this.db, id)))) throw new StorageNotFoundError('api_key_not_found', `no API key with id ${id}`);
      const pending = this.touches.get(id);
      if (pending === undefined || pending < patch.lastUsedAt) this.touches.set(id, patch.lastUsedAt);
      return;
    }
    await this.directoryWrite(updateApiKeyRow(this.db, id, patch, this.directoryChanged));
  }

  private withTouch(key: ApiKeyRecord | null): ApiKeyRecord | null {
    const touched = key && this.touches.get(key.id);
    return key && touched && (key.lastUsedAt === null || key.lastUsedAt < touched) ? { ...key, lastUsedAt: touched } : key;
  }

  private async flushTouches(): Promise<void> {
    if (this.touches.size === 0) return;
    const touches = [...this.touches];
    this.touches.clear();
    try {
      await touchApiKeyRows(this.db, touches);
    } catch (err) {
      // Kept for the next interval, unless a newer mark came meanwhile.
      for (const [id, at] of touches) if (!this.touches.has(id)) this.touches.set(id, at);
      throw err;
    }
  }

  // Statements (statement-writes.ts, statement-reads.ts)

  async insertStatements(storeId: string, rows: StatementRow[]): Promise<InsertStatementsResult> {
    const result = await this.writeStatements(storeId, rows);
    if (result.ok && result.inserted.length > 0) await this.keepStoreTotalRight(storeId, rows.map((row) => row.stored));
    return result;
  }

  /**
   * After a write that committed records with these times: one stored long ago (an import keeps
   * the source's `stored`) may be counted where the Store's running total has passed, so the total
   * is dropped (dropStoreTotal). A failure is logged, not thrown, for the write is kept; the total
   * then stays short until the hourly fold of every period sums the minutes again.
   */
  private async keepStoreTotalRight(storeId: string, times: string[]): Promise<void> {
    if (!behindStoreTotal(times, Date.now())) return;
    await dropStoreTotal(this.db, storeId).catch((err: unknown) => this.options.log?.(`could not drop the statement total of a Store: ${String(err)}`));
  }

  private async writeStatements(storeId: string, rows: StatementRow[]): Promise<InsertStatementsResult> {
    this.watermark.assertHeld();
    // New statements in one round trip (statement-fast-writes.ts); the rest, and any doubt, below.
    // The first try may go with other requests' in one call (statement-write-groups.ts).
    for (let attempt = 1; attempt <= FAST_WRITE_ATTEMPTS; attempt++) {
      let fast = attempt === 1 ? await this.writeGroups.insert(storeId, rows) : await this.fastWrites.insert(storeId, rows, true);
      if (fast === 'alone') fast = await this.fastWrites.insert(storeId, rows, false);
      if (fast === null) break;
      if (fast !== 'again') {
        this.announceRecords(storeId, fast.seqs, fast.voided);
        return fast.result;
      }
    }
    this.fastWrites.forget(storeId, rows);
    const written = await this.write(async (tx) => insertStatementRows(tx, await this.storeNumFor(tx, storeId), rows));
    const inserted = new Set(written.result.ok ? written.result.inserted : []);
    this.announceRecords(storeId, written.seqs, rows.flatMap((row) => (row.voidsStatementId !== null && inserted.has(row.statementId) ? [row.voidsStatementId] : [])));
    return written.result;
  }

  /** Statements or rejections this process committed with `seqs`, for the other processes. */
  private announceRecords(storeId: string, seqs: readonly number[], voided: string[]): void {
    if (seqs.length === 0) return;
    this.missed.cover(seqs[0]!, seqs[seqs.length - 1]!);
    this.announcer.announce({ kind: 'records', storeId, fromSeq: seqs[0]!, toSeq: seqs[seqs.length - 1]!, voided });
  }

  findStatement(storeId: string, statementId: string): Promise<StoredStatement | null> {
    return this.read(storeId, null, (storeNum) => findStatementRow(this.db, storeNum, statementId));
  }

  async findStatementWithConsistentThrough(storeId: string, statementId: string, floorMs: number): Promise<StatementWithConsistentThrough> {
    const found = await this.read(storeId, null, (storeNum) => findStatementRowWithLease(this.db, storeNum, statementId));
    // No such Store: no statement, and the header as any read decides it.
    if (!found) return { statement: null, consistentThrough: (await this.readBounds(floorMs)).consistentThrough };
    return { statement: found.statement, consistentThrough: consistentThroughOf(floorMs, found.earliestTimeLease) };
  }

  async queryStatements(storeId: string, query: StatementQuery): Promise<StatementPage> {
    checkLimit(query.limit);
    return this.read(storeId, { statements: [], nextAfterSeq: null }, (storeNum) => queryStatementRows(this.db, storeNum, query));
  }

  /** The settled seq (record-seq.ts): every statement up to it is committed, or never will be. */
  currentSeq(): Promise<number> {
    return settledSeq(this.db);
  }

  /** Consistent-Through before the earliest stored time any process still writes, then the settled seq (record-seq.ts). */
  readBounds(floorMs: number): Promise<ReadBounds> {
    return readBounds(this.db, floorMs);
  }

  useStampFloor(floor: () => number): void {
    this.watermark.useFloor(floor);
  }

  findAttachments(storeId: string, sha2s: string[]): Promise<Array<{ sha2: string; contentType: string; content: Uint8Array }>> {
    return this.read(storeId, [], (storeNum) => findAttachmentRows(this.db, storeNum, sha2s));
  }

  findActivity(storeId: string, activityId: string): Promise<ActivityRecord | null> {
    return this.read(storeId, null, async (storeNum) => {
      const [row] = await this.db.query<{ definition: string; updated: string }>(
        'SELECT definition, updated FROM activities WHERE store_num = $1 AND activity_id = $2',
        [storeNum, activityId],
      );
      return row ? { activityId, definition: JSON.parse(row.definition) as Record<string, unknown>, updated: row.updated } : null;
    });
  }

  async importActivities(storeId: string, activities: ActivityRecord[]): Promise<void> {
    await this.write(async (tx) => {
      const storeNum = await this.storeNumFor(tx, storeId);
      if (activities.length === 0) return;
      await tx.query(
        `INSERT INTO activities (store_num, activity_id, definition, updated)
         SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[])
         ON CONFLICT (store_num, activity_id) DO UPDATE SET definition = excluded.definition, updated = excluded.updated`,
        [storeNum, activities.map((a) => a.activityId), activities.map((a) => JSON.stringify(a.definition)), activities.map((a) => a.updated)],
      );
      await keepActivityNames(tx, storeNum, activities.map((a) => ({ id: a.activityId, definition: a.definition })));
    });
  }

  /** Everything this database holds, as portable records (export-records.ts), up to the settled seq. */
  exportRecords(): AsyncIterable<PortableRecord> {
    return withAdminRecords(this, exportPostgresRecords(this.db));
  }

  // Rejections and the Statement Explorer (explorer.ts)

  async insertRejections(storeId: string, rows: RejectionRow[]): Promise<void> {
    if (rows.length === 0) {
      if (!(await findStoreRow(this.db, 'id', storeId))) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
      return;
    }
    const seqs = await this.write(async (tx) => insertRejectionRows(tx, await this.storeNumFor(tx, storeId), rows));
    this.announceRecords(storeId, seqs, []);
    await this.keepStoreTotalRight(storeId, rows.map((row) => row.receivedAt));
  }

  async searchExplorer(storeId: string, query: ExplorerQuery): Promise<ExplorerPage> {
    checkLimit(query.limit);
    return this.read(storeId, { records: [], nextBeforeSeq: null }, (storeNum) => searchExplorerRows(this.db, storeNum, query));
  }

  async lookupNames(storeId: string, query: NameQuery): Promise<NamedValue[]> {
    checkLimit(query.limit);
    return this.read(storeId, [], (storeNum) => lookupNameRows(this.db, storeNum, query));
  }

  async matchNames(storeId: string, query: WordsQuery): Promise<string[]> {
    checkLimit(query.limit);
    return this.read(storeId, [], (storeNum) => matchNameRows(this.db, storeNum, query));
  }

  // Refused requests (refusals.ts)

  async insertRefusals(rows: Array<RefusalRow & { storeId: string | null }>): Promise<StoredRefusal[]> {
    if (rows.length === 0) return [];
    const stored = await this.write(async (tx) => {
      // Rows of a Store deleted since the refusal are dropped: its log went with it.
      const storeIds = [...new Set(rows.flatMap((row) => (row.storeId === null ? [] : [row.storeId])))];
      const { rows: nums } = await tx.query<{ id: string; num: number }>('SELECT id, num FROM stores WHERE id = ANY($1::text[]) FOR SHARE', [storeIds]);
      const numOf = new Map(nums.map((row) => [row.id, row.num]));
      const kept = rows.flatMap((row) => {
        const storeNum = row.storeId === null ? SERVICE_WIDE : numOf.get(row.storeId);
        return storeNum === undefined ? [] : [{ ...row, storeNum }];
      });
      const ids = await insertRefusalRows(tx, kept);
      return kept.map(({ storeNum: _storeNum, ...row }, i) => ({ ...refusalFields(row), storeId: row.storeId, id: ids[i]! }));
    });
    for (const r of stored) this.announcer.announce({ kind: 'refusal', storeId: r.storeId, id: r.id, status: r.status, code: r.code, at: r.at });
    return stored;
  }

  async listRefusals(query: RefusalQuery): Promise<RefusalPage> {
    checkLimit(query.limit);
    if (query.storeId === null) return listRefusalRows(this.db, SERVICE_WIDE, null, query);
    const storeId = query.storeId;
    return this.read(storeId, { refusals: [], nextBeforeId: null }, (storeNum) => listRefusalRows(this.db, storeNum, storeId, query));
  }

  // The audit log (audit-log.ts)

  insertAuditEntry(row: AuditRow): Promise<StoredAuditEntry> {
    return insertAuditRow(this.db, row);
  }

  listAuditEntries(query: AuditQuery): Promise<AuditPage> {
    checkLimit(query.limit);
    return listAuditRows(this.db, query);
  }

  pruneAuditEntries(beforeMs: number): Promise<number> {
    return pruneAuditRows(this.db, beforeMs);
  }

  // Documents (documents.ts)

  findDocument(storeId: string, key: DocumentKey): Promise<StoredDocument | null> {
    return this.read(storeId, null, (storeNum) => findDocumentRow(this.db, storeNum, key));
  }

  listDocumentIds(storeId: string, set: DocumentSet): Promise<string[]> {
    return this.read(storeId, [], (storeNum) => listDocumentIdRows(this.db, storeNum, set));
  }

  upsertDocument(storeId: string, key: DocumentKey, document: DocumentContent, ifCurrent: string | null): Promise<boolean> {
    return upsertDocumentRow(this.db, storeId, key, document, ifCurrent, this.options.beforeCommit);
  }

  deleteDocument(storeId: string, key: DocumentKey, ifCurrent?: string): Promise<boolean> {
    return deleteDocumentRow(this.db, storeId, key, ifCurrent, this.options.beforeCommit);
  }

  deleteDocuments(storeId: string, set: DocumentSet): Promise<number> {
    return this.write(async (tx) => deleteDocumentRows(tx, await this.storeNumFor(tx, storeId), set));
  }

  // Test Bench: packages, their files and launches (bench.ts)

  async writePackageFile(storeId: string, packageId: string, path: string, content: Uint8Array): Promise<void> {
    await this.write(async (tx) => writePackageFileRow(tx, await this.storeNumFor(tx, storeId), packageId, path, content));
  }

  readPackageFile(storeId: string, packageId: string, path: string): Promise<Uint8Array | null> {
    return this.read(storeId, null, (storeNum) => readPackageFileRow(this.db, storeNum, packageId, path));
  }

  async discardPackageFiles(storeId: string, packageId: string): Promise<void> {
    await this.write(async (tx) => discardPackageFileRows(tx, await this.storeNumFor(tx, storeId), packageId));
  }

  async insertPackage(record: PackageRecord): Promise<void> {
    await this.write(async (tx) => insertPackageRow(tx, await this.storeNumFor(tx, record.storeId), record));
  }

  listPackages(storeId: string): Promise<PackageRecord[]> {
    return this.read(storeId, [], (storeNum) => listPackageRows(this.db, storeNum));
  }

  findPackage(storeId: string, id: string): Promise<PackageRecord | null> {
    return this.read(storeId, null, (storeNum) => findPackageRow(this.db, storeNum, id));
  }

  deletePackage(storeId: string, id: string): Promise<boolean> {
    return this.write(async (tx) => {
      const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR SHARE', [storeId]);
      return rows[0] ? deletePackageRows(tx, rows[0].num, id) : false;
    });
  }

  setPackageReference(storeId: string, id: string, reference: Record<string, unknown> | null): Promise<boolean> {
    return this.write(async (tx) => {
      const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR SHARE', [storeId]);
      return rows[0] ? setPackageReferenceRow(tx, rows[0].num, id, reference) : false;
    });
  }

  async insertLaunch(record: LaunchRecord): Promise<void> {
    await this.write(async (tx) => insertLaunchRow(tx, await this.storeNumFor(tx, record.storeId), record));
  }

  findLaunch(storeId: string, id: string): Promise<LaunchRecord | null> {
    return this.read(storeId, null, (storeNum) => findLaunchRow(this.db, storeNum, id));
  }

  listLaunches(storeId: string, query: { registration?: string }): Promise<LaunchRecord[]> {
    return this.read(storeId, [], (storeNum) => listLaunchRows(this.db, storeNum, query.registration));
  }

  redeemLaunchFetch(storeId: string, id: string, at: string, keyId: string): Promise<boolean> {
    return this.write(async (tx) => redeemLaunchFetchRow(tx, await this.storeNumFor(tx, storeId), id, at, keyId));
  }

  async insertDocumentWrite(storeId: string, row: DocumentWriteRow): Promise<void> {
    await this.write(async (tx) => insertDocumentWriteRow(tx, await this.storeNumFor(tx, storeId), row));
  }

  listDocumentWrites(storeId: string, registration: string): Promise<StoredDocumentWrite[]> {
    return this.read(storeId, [], (storeNum) => listDocumentWriteRows(this.db, storeNum, registration));
  }

  // Imports of statements (import-jobs.ts)

  putImportJob(job: ImportJobRecord): Promise<void> {
    return putImportJobRow(this.db, job);
  }

  findImportJob(storeId: string, id: string): Promise<ImportJobRecord | null> {
    return findImportJobRow(this.db, storeId, id);
  }

  listImportJobs(query: { storeId: string } | { unfinished: true }): Promise<ImportJobRecord[]> {
    return listImportJobRows(this.db, query);
  }

  claimImportJob(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return claimImportJobRow(this.db, id, owner, leaseMs);
  }

  // Console: statistics and maintenance (ingestion.ts, records.ts)

  // Forgetting a learner and a Store's retention (erasure.ts)

  eraseAgents(storeId: string, request: ErasureRequest): Promise<ErasureOutcome> {
    return this.write((tx) => eraseAgentsTx(tx, storeId, request));
  }

  listErasures(storeId?: string): Promise<ErasureRecord[]> {
    return listErasureRows(this.db, storeId);
  }

  reapplyErasure(entry: ErasureRecord): Promise<ErasureCounts | null> {
    return this.write((tx) => reapplyErasureTx(tx, entry));
  }

  keepErasureRecord(entry: ErasureRecord): Promise<boolean> {
    return this.write((tx) => insertErasureRow(tx, entry));
  }

  retentionStep(storeId: string, cutoffs: RetentionCutoffs): Promise<RetentionStepResult> {
    return this.write((tx) => retentionStepTx(tx, storeId, cutoffs));
  }

  async emptyStore(storeId: string): Promise<void> {
    await this.write(async (tx) => {
      const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1 FOR UPDATE', [storeId]);
      if (!rows[0]) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
      await holdFold(tx);
      await deleteStoreRows(tx, rows[0].num, false);
    });
  }

  ingestionReport(query: IngestionQuery): Promise<IngestionStats> {
    if (query.storeId === undefined) return ingestionReportRows(this.db, null, query);
    return this.read(query.storeId, EMPTY_INGESTION, (storeNum) => ingestionReportRows(this.db, storeNum, query));
  }

  async displayNames(query: { storeId?: string; verbIds: string[]; activityIds: string[] }): Promise<DisplayNames> {
    const stores =
      query.storeId === undefined
        ? await this.db.query<{ num: number }>('SELECT num FROM stores ORDER BY num')
        : await this.db.query<{ num: number }>('SELECT num FROM stores WHERE id = $1', [query.storeId]);
    return displayNameRows(
      this.db,
      stores.map((row) => row.num),
      query.verbIds,
      query.activityIds,
    );
  }

  async stats(storeId?: string): Promise<StorageStats> {
    const [counts, [size]] = await Promise.all([
      storeCountRows(this.db, storeId ?? null),
      this.db.query<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes'),
    ]);
    return { ...counts, databaseBytes: size?.bytes ?? 0 };
  }

  /** Starts hearing the other processes' changes and counting them; openPostgresStorage calls it. */
  async start(): Promise<void> {
    await this.changes.start();
    await this.missed.start();
    await this.processes.start();
    await this.watermark.start();
  }

  processCount(): number {
    return this.processes.count;
  }

  watchChanges(listener: (change: StorageChange) => void): () => void {
    return this.changes.subscribe(listener);
  }

  /**
   * Prunes the rejected log and every log of refused requests to their bounds (the service's
   * limits per Store, LIMIT defaults otherwise); resolves with how many rejections went. Runs by
   * itself when `rejectionRetention` is given.
   */
  async pruneLogs(nowMs = Date.now()): Promise<number> {
    const forStore = this.options.rejectionRetention?.forStore;
    const stores = await listStoreRows(this.db);
    return pruneLogs(this.db, (store) => forStore?.(withoutNum(store)!) ?? DEFAULT_RETENTION_BOUNDS, DEFAULT_RETENTION_BOUNDS, stores, nowMs);
  }

  async adminTokenHash(): Promise<string | null> {
    const [row] = await this.db.query<{ value: string }>("SELECT value FROM service_settings WHERE key = 'admin_token_sha256'");
    return row?.value ?? null;
  }

  async keepAdminTokenHash(hash: string, replace: boolean): Promise<string> {
    const [row] = await this.db.query<{ value: string }>(
      `INSERT INTO service_settings (key, value) VALUES ('admin_token_sha256', $1)
       ON CONFLICT (key) DO UPDATE SET value = CASE WHEN $2::boolean THEN excluded.value ELSE service_settings.value END
       RETURNING value`,
      [hash, replace],
    );
    return row!.value;
  }

  /** Every write is durable when it resolves (it committed): nothing to wait for. */
  async sync(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.announcer.flush();
    await this.changes.close();
    await this.processes.stop();
    await this.watermark.close();
    await this.flushTouches().catch((err: unknown) => this.options.log?.(`could not record when API keys were last used: ${String(err)}`));
    await this.db.close();
  }
}

function withoutNum(store: (StoreRecord & { num: number }) | null): StoreRecord | null {
  if (!store) return null;
  const { num: _num, ...record } = store;
  return record;
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
}
