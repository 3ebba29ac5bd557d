/**
 * The embedded Storage: the whole database lives in sql.js (SQLite compiled to WebAssembly, in
 * memory); durability comes from an append-only journal with group commit and from snapshots
 * (durable-database.ts). See ../README.md for the file formats, recovery and the crash windows.
 *
 * This class only composes: each method waits until the database is open (reads) or takes writes,
 * lets its domain's module check and build the journal operation or read the rows, and commits.
 * Checking and committing happen with no await between, so writes are atomic with respect to
 * each other.
 */
import { createRequire } from 'node:module';
import type {
  ImportJobRecord,
  ActivityRecord,
  ApiKeyPatch,
  ApiKeyRecord,
  DocumentContent,
  DocumentKey,
  DocumentSet,
  DocumentWriteRow,
  ExplorerPage,
  ExplorerQuery,
  IngestionQuery,
  IngestionStats,
  InsertStatementsResult,
  LaunchRecord,
  PackageRecord,
  RefusalPage,
  RefusalQuery,
  RefusalRow,
  RejectionRow,
  ReadBounds,
  StatementPage,
  StatementQuery,
  StatementRow,
  StatementWithConsistentThrough,
  Storage,
  StorageCapacity,
  StorageStats,
  StoreRecord,
  StoredDocument,
  StoredDocumentWrite,
  StoredRefusal,
  StoredStatement,
  DisplayNames,
  NamedValue,
  NameQuery,
  WordsQuery,
} from '../storage';
import { withAdminRecords } from '../portable-admin';
import type { PortableRecord } from '../portable';
import type { DeadLetterRecord, ForwardableStatement, ForwarderPatch, ForwarderRecord, ForwarderSettlement } from '../forwarders';
import {
  countForwardableRows,
  findForwarderRow,
  listDeadLetterRows,
  listForwarderRows,
  readForwardableRows,
  requeueOp,
  settleForwarderOp,
} from './forwarders';
import { findImportJobRow, listImportJobRows } from './import-jobs';
import { findActivityRow } from './activities';
import {
  findLaunchRow,
  findPackageRow,
  insertDocumentWriteOp,
  insertLaunchOp,
  insertPackageOp,
  listDocumentWriteRows,
  listedPackageFolders,
  listLaunchRows,
  listPackageRows,
} from './bench';
import { PackageFiles } from './package-files';
import path from 'node:path';
import { exportSqljsRecords } from './export-records';
import { CapacityGuard, DEFAULT_CAPACITY_LIMIT_BYTES } from './capacity';
import { pruneRejections, pruneStepwise } from './pruning';
import { DEFAULT_RETENTION_BOUNDS, DEFAULT_RETENTION_INTERVAL_MS, scheduleRetention } from './retention';
import type { RetentionBounds } from './retention';
import { insertRefusalsOp, listRefusalRows, planPruneRefusals, SERVICE_WIDE } from './refusals';
import { countAuditRows, insertAuditOp, listAuditRows, planPruneAudit } from './audit-log';
import type { AuditPage, AuditQuery, AuditRow, StoredAuditEntry } from '../audit';
import { apiKeyUpdate, assertApiKey, findApiKeyRow, insertApiKeyOp, listApiKeyRows } from './api-keys';
import {
  countDocumentRows,
  currentEtag,
  deleteDocumentsOp,
  findDocumentRow,
  listDocumentIdRows,
  upsertDocumentOp,
} from './documents';
import { DurableDatabase } from './durable-database';
import type { ErasureCounts, ErasureOutcome, ErasureRecord, ErasureRequest, RetentionCutoffs, RetentionStepResult } from '../erasure';
import { eraseAgentsOn, keepErasureRecordOn, reapplyErasureOn, reconcileErasureLedger, retentionStepOn } from './erasure-runner';
import { listErasureRows } from './erasure';
import { appendErasureLedgerFile } from './erasure-ledger-file';
import type { SqljsStorageOptions } from './durable-database';
import { searchExplorerRows } from './explorer';
import { lookupNameRows, matchNameRows } from './explorer-names';
import { displayNameRows, ingestionReportRows } from './ingestion';
import type { BackupSummary } from './backup';
import { writeCheckedBackup } from './backup-file';
import type { Op } from './ops';
import { RecordCache } from './record-cache';
import { insertRejectionsOp } from './rejections';
import type { Sql } from './sql';
import { findAttachmentRows, findStatementRow, queryStatementRows } from './statement-reads';
import { planInsertStatements } from './statement-writes';
import {
  countStoreRows,
  deleteStoreOp,
  findStoreRow,
  insertStoreOp,
  listStoreRows,
  requireStoreNum,
  updateStoreOp,
} from './stores';
import type { StorePatch } from './stores';

export type { SqljsStorageOptions } from './durable-database';
export { SNAPSHOT_FILE } from './data-dir-files';
export { DataDirLockedError } from './lock';
export { StorageUnavailableError } from '../storage';

const EMPTY_INGESTION: IngestionStats = { series: [], totals: { accepted: 0, voided: 0, rejected: 0 }, topVerbs: [], topActivities: [] };

/** Opens (creating when needed) the data directory: lock, snapshot, journal replay. */
export async function openSqljsStorage(options: SqljsStorageOptions): Promise<SqljsStorage> {
  const db = await DurableDatabase.open(options);
  // Erasures recorded after the image this data was restored from are applied again (erasure-runner.ts).
  await reconcileErasureLedger(db, options.log ?? (() => {})).catch(async (err: unknown) => {
    await db.close();
    throw err;
  });
  // Package files without a record: an import a crash cut short, a Store deleted meanwhile.
  const kept = listedPackageFolders(db.sql);
  await new PackageFiles(packagesDir(db.dataDir)).sweep((storeId, packageId) => kept.has(`${storeId}/${packageId}`));
  return new SqljsStorage(db, options);
}

function packagesDir(dataDir: string): string {
  return path.join(dataDir, 'packages');
}

export class SqljsStorage implements Storage {
  readonly dataDir: string;
  /** Refuses writes that add data near the database's limit (capacity.ts). */
  private readonly capacityGuard: CapacityGuard;
  private readonly stopRetention: () => void;
  /** Stores and keys as last read, for the per-request lookups (record-cache.ts). */
  private readonly records = new RecordCache();
  /** The Test Bench's package files, in the data directory (package-files.ts). */
  private readonly packageFiles: PackageFiles;

  constructor(
    private readonly db: DurableDatabase,
    private readonly options: Pick<SqljsStorageOptions, 'capacityLimitBytes' | 'rejectionRetention' | 'log' | 'wasmPath'> = {},
  ) {
    this.dataDir = db.dataDir;
    this.packageFiles = new PackageFiles(packagesDir(db.dataDir));
    const log = options.log ?? (() => {});
    this.capacityGuard = new CapacityGuard(() => this.db.sql, () => this.db.journalBytes, options.capacityLimitBytes ?? DEFAULT_CAPACITY_LIMIT_BYTES, log);
    // Rejected-log retention (retention.ts): soon after open, then periodically; off unless configured.
    const retention = options.rejectionRetention;
    this.stopRetention = retention
      ? scheduleRetention(
          async () => {
            await this.pruneRejections().catch((err: unknown) => log(`could not prune the rejected-statement log: ${String(err)}`));
            await this.pruneRefusals().catch((err: unknown) => log(`could not prune the log of refused requests: ${String(err)}`));
          },
          retention.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS,
        )
      : () => {};
  }

  /** Bytes in the current journal file (what the snapshot threshold is compared with). */
  get journalBytes(): number {
    return this.db.journalBytes;
  }

  /** Bytes of the database image: what a snapshot writes. */
  get databaseBytes(): number {
    return this.db.databaseBytes;
  }

  // Stores (stores.ts)

  async insertStore(store: StoreRecord): Promise<void> {
    await this.db.writable();
    await this.commitIf(insertStoreOp(this.db.state, store), { changesRecords: true });
  }

  async findStoreBySlug(slug: string): Promise<StoreRecord | null> {
    this.db.assertOpen();
    return this.records.store(this.db.state, 'slug', slug, () => findStoreRow(this.db.sql, 'slug', slug));
  }

  async findStoreById(id: string): Promise<StoreRecord | null> {
    this.db.assertOpen();
    return this.records.store(this.db.state, 'id', id, () => findStoreRow(this.db.sql, 'id', id));
  }

  async listStores(): Promise<StoreRecord[]> {
    this.db.assertOpen();
    return listStoreRows(this.db.sql);
  }

  async updateStore(id: string, patch: StorePatch): Promise<void> {
    await this.db.writable();
    await this.commitIf(updateStoreOp(this.db.state, id, patch), { changesRecords: true });
  }

  async deleteStore(id: string): Promise<void> {
    await this.db.writable();
    await this.commitIf(deleteStoreOp(this.db.state, id), { changesRecords: true });
    await this.packageFiles.removeStore(id);
  }

  // API keys (api-keys.ts)

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.db.writable();
    await this.commitIf(insertApiKeyOp(this.db.state, key), { changesRecords: true });
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    this.db.assertOpen();
    return this.records.apiKey(this.db.state, id, () => findApiKeyRow(this.db.sql, id));
  }

  async listApiKeys(storeId: string): Promise<ApiKeyRecord[]> {
    this.db.assertOpen();
    return listApiKeyRows(this.db.sql, storeId);
  }

  /**
   * A patch of only a (non-null) `lastUsedAt` is the per-request "key used" mark: applied in
   * memory at once and journaled coalesced (DurableDatabase.touchApiKey). It never fails for a
   * full disk, so authentication keeps working.
   */
  async updateApiKey(id: string, patch: ApiKeyPatch): Promise<void> {
    const update = apiKeyUpdate(patch);
    if ('touch' in update) {
      this.db.assertOpen();
      assertApiKey(this.db.sql, id);
      this.records.forgetApiKey(id);
      this.db.touchApiKey(id, update.touch);
      return;
    }
    await this.db.writable();
    assertApiKey(this.db.sql, id);
    await this.commitIf(Object.keys(update.patch).length === 0 ? null : { t: 'updateApiKey', id, patch: update.patch }, { changesRecords: true });
  }

  // Statements (statement-writes.ts, statement-reads.ts)

  async insertStatements(storeId: string, rows: StatementRow[]): Promise<InsertStatementsResult> {
    await this.db.writable();
    const { result, op } = planInsertStatements(this.db.state, requireStoreNum(this.db.state, storeId), rows);
    if (op) this.capacityGuard.assertRoom();
    if (op) await this.db.commit(op);
    // An unchanged row may be one whose own write is still on its way to the disk.
    else if (result.ok) await this.db.durable();
    return result;
  }

  // Reads of statements and rejections stop at db.visibleSeq: a statement applied in memory whose
  // journal record is not yet on disk is not shown (durable-database.ts says why).

  async findStatement(storeId: string, statementId: string): Promise<StoredStatement | null> {
    const found = this.read(storeId, null, (sql, storeNum) => findStatementRow(sql, storeNum, statementId));
    return found && found.seq <= this.db.visibleSeq ? found : null;
  }

  async queryStatements(storeId: string, query: StatementQuery): Promise<StatementPage> {
    this.db.assertOpen();
    checkLimit(query.limit);
    const visible = { ...query, maxSeq: Math.min(query.maxSeq ?? Number.MAX_SAFE_INTEGER, this.db.visibleSeq) };
    return this.read(storeId, { statements: [], nextAfterSeq: null }, (sql, storeNum) => queryStatementRows(sql, storeNum, visible));
  }

  async currentSeq(): Promise<number> {
    this.db.assertOpen();
    return this.db.visibleSeq;
  }

  async findStatementWithConsistentThrough(storeId: string, statementId: string, floorMs: number): Promise<StatementWithConsistentThrough> {
    const { consistentThrough } = await this.readBounds(floorMs);
    return { statement: await this.findStatement(storeId, statementId), consistentThrough };
  }

  /**
   * Consistent-Through is just before the earliest statement still being written: stamped and not
   * yet applied (`floorMs`), or applied and its record not yet durable (not yet visible).
   */
  async readBounds(floorMs: number): Promise<ReadBounds> {
    this.db.assertOpen();
    const maxSeq = this.db.visibleSeq;
    // Nothing applied beyond what is visible (a GET while no write is in flight): no row to look for.
    if (this.db.appliedSeq <= maxSeq) return { consistentThrough: new Date(floorMs - 1).toISOString(), maxSeq };
    const [pending] = this.db.sql.first('SELECT min(stored_ms) FROM statements WHERE seq > ?', [maxSeq]) ?? [null];
    return { consistentThrough: new Date(Math.min(floorMs, typeof pending === 'number' ? pending : floorMs) - 1).toISOString(), maxSeq };
  }

  /** Raw attachments by sha2 (xAPI §2.4.11). */
  async findAttachments(
    storeId: string,
    sha2s: string[],
  ): Promise<Array<{ sha2: string; contentType: string; content: Uint8Array }>> {
    return this.read(storeId, [], (sql, storeNum) => findAttachmentRows(sql, storeNum, sha2s));
  }

  // Activities (written by insertStatements; table and merge in activities.ts)

  async findActivity(storeId: string, activityId: string): Promise<ActivityRecord | null> {
    return this.read(storeId, null, (sql, storeNum) => findActivityRow(sql, storeNum, activityId));
  }

  async importActivities(storeId: string, activities: ActivityRecord[]): Promise<void> {
    await this.db.writable();
    const storeNum = requireStoreNum(this.db.state, storeId);
    if (activities.length === 0) return this.sync();
    // An insertStatements record without statements carries definitions whole, as replay writes them.
    await this.db.commit({
      t: 'insertStatements',
      storeNum,
      rows: [],
      activities: activities.map((a) => ({ id: a.activityId, definition: a.definition, updated: a.updated })),
    });
  }

  /** Everything this storage holds, as portable records (export-records.ts), up to what is durable. */
  exportRecords(): AsyncIterable<PortableRecord> {
    this.db.assertOpen();
    return withAdminRecords(this, exportSqljsRecords(this.db.sql, this.db.visibleSeq));
  }

  // Documents (State, Activity Profile, Agent Profile): table and operations in documents.ts

  async findDocument(storeId: string, key: DocumentKey): Promise<StoredDocument | null> {
    return this.read(storeId, null, (sql, storeNum) => findDocumentRow(sql, storeNum, key));
  }

  async listDocumentIds(storeId: string, set: DocumentSet): Promise<string[]> {
    return this.read(storeId, [], (sql, storeNum) => listDocumentIdRows(sql, storeNum, set));
  }

  async upsertDocument(storeId: string, key: DocumentKey, document: DocumentContent, ifCurrent: string | null): Promise<boolean> {
    await this.db.writable();
    const storeNum = requireStoreNum(this.db.state, storeId);
    // Compare and write with no await between: another write cannot slip in.
    if (currentEtag(this.db.sql, storeNum, key) !== ifCurrent) return this.syncThen(false);
    this.capacityGuard.assertRoom();
    await this.db.commit(upsertDocumentOp(storeNum, key, document));
    return true;
  }

  async deleteDocument(storeId: string, key: DocumentKey, ifCurrent?: string): Promise<boolean> {
    await this.db.writable();
    const storeNum = requireStoreNum(this.db.state, storeId);
    const current = currentEtag(this.db.sql, storeNum, key);
    if (current === null || (ifCurrent !== undefined && current !== ifCurrent)) return this.syncThen(false);
    await this.db.commit(deleteDocumentsOp(storeNum, key, key.id));
    return true;
  }

  async deleteDocuments(storeId: string, set: DocumentSet): Promise<number> {
    await this.db.writable();
    const storeNum = requireStoreNum(this.db.state, storeId);
    const count = countDocumentRows(this.db.sql, storeNum, set);
    if (count > 0) await this.db.commit(deleteDocumentsOp(storeNum, set));
    else await this.sync();
    return count;
  }

  // Rejections and the Statement Explorer (rejections.ts, explorer.ts)

  async insertRejections(storeId: string, rows: RejectionRow[]): Promise<void> {
    await this.db.writable();
    const op = insertRejectionsOp(this.db.state, requireStoreNum(this.db.state, storeId), rows);
    if (op) this.capacityGuard.assertRoom();
    await this.commitIf(op);
  }

  async searchExplorer(storeId: string, query: ExplorerQuery): Promise<ExplorerPage> {
    this.db.assertOpen();
    checkLimit(query.limit);
    const visible = { ...query, beforeSeq: Math.min(query.beforeSeq ?? Number.MAX_SAFE_INTEGER, this.db.visibleSeq + 1) };
    return this.read(storeId, { records: [], nextBeforeSeq: null }, (sql, storeNum) => searchExplorerRows(sql, storeNum, visible));
  }

  async lookupNames(storeId: string, query: NameQuery): Promise<NamedValue[]> {
    this.db.assertOpen();
    checkLimit(query.limit);
    return this.read(storeId, [], (sql, storeNum) => lookupNameRows(sql, storeNum, query));
  }

  async matchNames(storeId: string, query: WordsQuery): Promise<string[]> {
    this.db.assertOpen();
    checkLimit(query.limit);
    return this.read(storeId, [], (sql, storeNum) => matchNameRows(sql, storeNum, query));
  }

  // Refused requests (refusals.ts)

  async insertRefusals(rows: Array<RefusalRow & { storeId: string | null }>): Promise<StoredRefusal[]> {
    await this.db.writable();
    // Rows of a Store deleted since the refusal are dropped: its log went with it.
    const kept = rows.flatMap((row) => {
      const storeNum = row.storeId === null ? SERVICE_WIDE : this.db.state.storeNums.get(row.storeId);
      return storeNum === undefined ? [] : [{ ...row, storeNum }];
    });
    const op = insertRefusalsOp(this.db.state, kept);
    if (!op) return [];
    this.capacityGuard.assertRoom();
    await this.db.commit(op);
    return op.rows.map(({ storeNum: _storeNum, ...row }, i) => ({ ...row, storeId: kept[i]!.storeId }));
  }

  async listRefusals(query: RefusalQuery): Promise<RefusalPage> {
    this.db.assertOpen();
    checkLimit(query.limit);
    const none: RefusalPage = { refusals: [], nextBeforeId: null };
    if (query.storeId === null) return listRefusalRows(this.db.sql, SERVICE_WIDE, null, query);
    const storeId = query.storeId;
    return this.read(storeId, none, (sql, storeNum) => listRefusalRows(sql, storeNum, storeId, query));
  }

  /**
   * Prunes every log of refused requests (each Store's and the service's) to `bounds` (default:
   * the rejected log's defaults, 10,000 and 30 days), in journaled steps like the rejected log.
   * Runs by itself with that log's schedule when `rejectionRetention` is configured.
   */
  async pruneRefusals(nowMs = Date.now(), bounds: RetentionBounds = DEFAULT_RETENTION_BOUNDS): Promise<void> {
    this.db.assertOpen();
    for (const storeNum of [SERVICE_WIDE, ...this.db.state.storeNums.values()]) {
      await pruneStepwise(this.db, () => planPruneRefusals(this.db.sql, storeNum, bounds, nowMs));
    }
  }

  // Forgetting a learner and a Store's retention (erasure.ts, store-retention.ts, erasure-runner.ts)

  async eraseAgents(storeId: string, request: ErasureRequest): Promise<ErasureOutcome> {
    return eraseAgentsOn(this.db, storeId, request);
  }

  async listErasures(storeId?: string): Promise<ErasureRecord[]> {
    this.db.assertOpen();
    return listErasureRows(this.db.sql, storeId);
  }

  async reapplyErasure(entry: ErasureRecord): Promise<ErasureCounts | null> {
    const counts = await reapplyErasureOn(this.db, entry);
    if (counts !== null) await appendErasureLedgerFile(this.dataDir, [entry]);
    return counts;
  }

  async keepErasureRecord(entry: ErasureRecord): Promise<boolean> {
    const kept = await keepErasureRecordOn(this.db, entry);
    if (kept) await appendErasureLedgerFile(this.dataDir, [entry]);
    return kept;
  }

  async retentionStep(storeId: string, cutoffs: RetentionCutoffs): Promise<RetentionStepResult> {
    return retentionStepOn(this.db, storeId, cutoffs);
  }

  // Forwarders (forwarders.ts): one process owns the data directory, so no lease is needed.

  async insertForwarder(record: ForwarderRecord): Promise<void> {
    await this.db.writable();
    await this.db.commit({ t: 'insertForwarder', storeNum: requireStoreNum(this.db.state, record.storeId), record });
  }

  async listForwarders(storeId?: string): Promise<ForwarderRecord[]> {
    if (storeId === undefined) {
      this.db.assertOpen();
      return listForwarderRows(this.db.sql);
    }
    return this.read(storeId, [], (sql, storeNum) => listForwarderRows(sql, storeNum));
  }

  async findForwarder(id: string): Promise<ForwarderRecord | null> {
    this.db.assertOpen();
    return findForwarderRow(this.db.sql, id);
  }

  async updateForwarder(id: string, patch: ForwarderPatch): Promise<boolean> {
    await this.db.writable();
    if (!findForwarderRow(this.db.sql, id)) return this.syncThen(false);
    await this.db.commit({ t: 'updateForwarder', id, patch });
    return true;
  }

  async settleForwarderBatch(id: string, settlement: ForwarderSettlement): Promise<boolean> {
    await this.db.writable();
    const record = findForwarderRow(this.db.sql, id);
    if (!record) return this.syncThen(false);
    await this.db.commit(settleForwarderOp(this.db.state, record, settlement));
    return true;
  }

  async deleteForwarder(id: string): Promise<boolean> {
    await this.db.writable();
    if (!findForwarderRow(this.db.sql, id)) return this.syncThen(false);
    await this.db.commit({ t: 'deleteForwarder', id });
    return true;
  }

  async listDeadLetters(forwarderId: string): Promise<DeadLetterRecord[]> {
    this.db.assertOpen();
    return listDeadLetterRows(this.db.sql, forwarderId);
  }

  async requeueDeadLetters(forwarderId: string, ids?: readonly number[]): Promise<number> {
    await this.db.writable();
    const op = requeueOp(this.db.sql, forwarderId, ids);
    if (!op || op.t !== 'requeueDeadLetters') return this.syncThen(0);
    await this.db.commit(op);
    return op.ids.length;
  }

  async readForwardable(storeId: string, range: { afterSeq: number; throughSeq?: number; limit: number }): Promise<ForwardableStatement[]> {
    checkLimit(range.limit);
    const throughSeq = Math.min(range.throughSeq ?? Number.MAX_SAFE_INTEGER, this.db.visibleSeq);
    return this.read(storeId, [], (sql, storeNum) => readForwardableRows(sql, storeNum, { ...range, throughSeq }));
  }

  async countForwardable(storeId: string, afterSeq: number): Promise<number> {
    return this.read(storeId, 0, (sql, storeNum) => countForwardableRows(sql, storeNum, afterSeq, this.db.visibleSeq));
  }

  // The audit log (audit-log.ts)

  async insertAuditEntry(row: AuditRow): Promise<StoredAuditEntry> {
    await this.db.writable();
    // Planned and committed with no await between: the id is the table's next.
    const op = insertAuditOp(this.db.sql, row);
    await this.db.commit(op);
    return op.row;
  }

  async listAuditEntries(query: AuditQuery): Promise<AuditPage> {
    this.db.assertOpen();
    checkLimit(query.limit);
    return listAuditRows(this.db.sql, query);
  }

  async pruneAuditEntries(beforeMs: number): Promise<number> {
    this.db.assertOpen();
    const due = countAuditRows(this.db.sql, beforeMs);
    if (due > 0) await pruneStepwise(this.db, () => planPruneAudit(this.db.sql, beforeMs));
    return due;
  }

  // Test Bench: packages and launches (bench.ts), package files (package-files.ts)

  async writePackageFile(storeId: string, packageId: string, relativePath: string, content: Uint8Array): Promise<void> {
    this.db.assertOpen();
    await this.packageFiles.write(storeId, packageId, relativePath, content);
  }

  async readPackageFile(storeId: string, packageId: string, relativePath: string): Promise<Uint8Array | null> {
    if (!this.read(storeId, null, (sql, storeNum) => findPackageRow(sql, storeNum, packageId))) return null;
    return this.packageFiles.read(storeId, packageId, relativePath);
  }

  async discardPackageFiles(storeId: string, packageId: string): Promise<void> {
    this.db.assertOpen();
    await this.packageFiles.removePackage(storeId, packageId);
  }

  async insertPackage(record: PackageRecord): Promise<void> {
    await this.db.writable();
    await this.db.commit(insertPackageOp(this.db.sql, requireStoreNum(this.db.state, record.storeId), record));
  }

  async listPackages(storeId: string): Promise<PackageRecord[]> {
    return this.read(storeId, [], listPackageRows);
  }

  async findPackage(storeId: string, id: string): Promise<PackageRecord | null> {
    return this.read(storeId, null, (sql, storeNum) => findPackageRow(sql, storeNum, id));
  }

  async deletePackage(storeId: string, id: string): Promise<boolean> {
    await this.db.writable();
    const storeNum = this.db.state.storeNums.get(storeId);
    if (storeNum === undefined || !findPackageRow(this.db.sql, storeNum, id)) return this.syncThen(false);
    await this.db.commit({ t: 'deletePackage', storeNum, id });
    // After the record: a crash between the two leaves files that the next open sweeps.
    await this.packageFiles.removePackage(storeId, id);
    return true;
  }

  async setPackageReference(storeId: string, id: string, reference: Record<string, unknown> | null): Promise<boolean> {
    await this.db.writable();
    const storeNum = this.db.state.storeNums.get(storeId);
    if (storeNum === undefined || !findPackageRow(this.db.sql, storeNum, id)) return this.syncThen(false);
    await this.db.commit({ t: 'setPackageReference', storeNum, id, reference });
    return true;
  }

  async insertLaunch(record: LaunchRecord): Promise<void> {
    await this.db.writable();
    await this.db.commit(insertLaunchOp(this.db.sql, requireStoreNum(this.db.state, record.storeId), record));
  }

  async findLaunch(storeId: string, id: string): Promise<LaunchRecord | null> {
    return this.read(storeId, null, (sql, storeNum) => findLaunchRow(sql, storeNum, id));
  }

  async listLaunches(storeId: string, query: { registration?: string }): Promise<LaunchRecord[]> {
    return this.read(storeId, [], (sql, storeNum) => listLaunchRows(sql, storeNum, query.registration));
  }

  async redeemLaunchFetch(storeId: string, id: string, at: string, keyId: string): Promise<boolean> {
    await this.db.writable();
    const storeNum = requireStoreNum(this.db.state, storeId);
    const launch = findLaunchRow(this.db.sql, storeNum, id);
    if (!launch || launch.fetchedAt !== null) return this.syncThen(false);
    await this.db.commit({ t: 'redeemLaunchFetch', storeNum, id, at, keyId });
    return true;
  }

  async insertDocumentWrite(storeId: string, row: DocumentWriteRow): Promise<void> {
    await this.db.writable();
    await this.db.commit(insertDocumentWriteOp(this.db.sql, requireStoreNum(this.db.state, storeId), row));
  }

  async listDocumentWrites(storeId: string, registration: string): Promise<StoredDocumentWrite[]> {
    return this.read(storeId, [], (sql, storeNum) => listDocumentWriteRows(sql, storeNum, registration));
  }

  // Imports of statements (import-jobs.ts)

  async putImportJob(job: ImportJobRecord): Promise<void> {
    await this.db.writable();
    await this.db.commit({ t: 'putImportJob', job });
  }

  async findImportJob(storeId: string, id: string): Promise<ImportJobRecord | null> {
    this.db.assertOpen();
    return findImportJobRow(this.db.sql, storeId, id);
  }

  async listImportJobs(query: { storeId: string } | { unfinished: true }): Promise<ImportJobRecord[]> {
    this.db.assertOpen();
    return listImportJobRows(this.db.sql, query);
  }

  /** One process owns the data directory (its lock): it always may run a job. */
  async claimImportJob(_id: string, _owner: string, _leaseMs: number): Promise<boolean> {
    this.db.assertOpen();
    return true;
  }

  // Console: statistics and maintenance (ingestion.ts, empty-store.ts)

  async emptyStore(storeId: string): Promise<void> {
    await this.db.writable();
    await this.db.commit({ t: 'emptyStore', storeNum: requireStoreNum(this.db.state, storeId) });
  }

  async displayNames(query: { storeId?: string; verbIds: string[]; activityIds: string[] }): Promise<DisplayNames> {
    this.db.assertOpen();
    const nums = query.storeId === undefined ? [...this.db.state.storeNums.values()] : [this.db.state.storeNums.get(query.storeId)].filter((n) => n !== undefined);
    return displayNameRows(this.db.sql, nums, query.verbIds, query.activityIds, this.db.visibleSeq);
  }

  async ingestionReport(query: IngestionQuery): Promise<IngestionStats> {
    this.db.assertOpen();
    // Counts applied but not yet written go in first (ingestion.ts, PendingIngestion).
    this.db.flushDerived();
    if (query.storeId === undefined) return ingestionReportRows(this.db.sql, null, query);
    return this.read(query.storeId, EMPTY_INGESTION, (sql, storeNum) => ingestionReportRows(sql, storeNum, query));
  }

  async stats(storeId?: string): Promise<StorageStats> {
    this.db.assertOpen();
    return { ...countStoreRows(this.db.state, storeId), databaseBytes: this.db.databaseBytes };
  }

  // Durability (durable-database.ts)

  /**
   * Writes the database image to `lore.sqlite` and starts a new journal file. Resolves once the
   * image is durable and the journal files it covers are deleted.
   */
  snapshot(): Promise<void> {
    return this.db.snapshot();
  }

  /**
   * Journals the coalesced last-used times and waits until every write so far is durable and no
   * snapshot is under way: the files then hold everything, as a backup copy of them would need.
   */
  flush(): Promise<void> {
    return this.db.flush();
  }

  close(): Promise<void> {
    this.stopRetention();
    return this.db.close();
  }

  // Safeguards: capacity (capacity.ts), backups (backup.ts), rejected-log retention (retention.ts)

  capacity(): StorageCapacity {
    this.db.assertOpen();
    return this.capacityGuard.current();
  }

  /**
   * The whole database as an SQLite file, from a consistent point (DurableDatabase.exportImage),
   * in memory: the tests compare the snapshot files with it. Not for users: it holds every request
   * while the image is made (writeBackup does not).
   */
  backup(): Promise<Uint8Array> {
    this.db.assertOpen();
    return this.db.exportImage();
  }

  damage(): string | null {
    return this.db.sql.damage;
  }

  /**
   * A checked backup file at `file` (backup-file.ts): the up-to-date snapshot copied under a
   * temporary name, checked in a worker thread, renamed. No writer waits for it. A file handed out
   * (a download) does not release the journal kept since the newest scheduled backup.
   */
  writeBackup(file: string, options: { handedOut?: boolean } = {}): Promise<BackupSummary> {
    this.db.assertOpen();
    const resolveModule = createRequire(import.meta.url).resolve;
    const sqlJs = { module: resolveModule('sql.js'), wasm: this.options.wasmPath ?? resolveModule('sql.js/dist/sql-wasm.wasm') };
    return writeCheckedBackup(file, (temp) => this.db.copySnapshotTo(temp), sqlJs).then(async (summary) => {
      if (!options.handedOut) await this.db.backupWritten(summary.journalSeq);
      return summary;
    });
  }

  /**
   * Deletes the rejections each Store keeps beyond its bounds (`rejectionRetention.forStore`, or
   * LIMIT_DEFAULTS), in journaled steps; resolves with how many. Runs by itself when configured.
   */
  async pruneRejections(nowMs = Date.now()): Promise<number> {
    this.db.assertOpen();
    const forStore = this.options.rejectionRetention?.forStore;
    return pruneRejections(
      this.db,
      (storeId) => {
        if (!forStore) return DEFAULT_RETENTION_BOUNDS;
        const store = findStoreRow(this.db.sql, 'id', storeId);
        return store ? forStore(store) : null;
      },
      nowMs,
    );
  }

  /** A read of one Store's rows; `none` for a Store that does not exist. */
  private read<T>(storeId: string, none: T, read: (sql: Sql, storeNum: number) => T): T {
    this.db.assertOpen();
    const storeNum = this.db.state.storeNums.get(storeId);
    return storeNum === undefined ? none : read(this.db.sql, storeNum);
  }

  /**
   * Resolves once every write applied so far is on disk. A no-op answer (nothing to delete,
   * nothing changed) may rest on a write still waiting for its fsync: it waits for it too, so
   * that no answer promises a state a crash could undo.
   */
  sync(): Promise<void> {
    return this.db.durable();
  }

  private async syncThen<T>(value: T): Promise<T> {
    await this.sync();
    return value;
  }

  /** `changesRecords`: the operation changes Stores or keys, so the cached ones are forgotten first. */
  private async commitIf(op: Op | null, options: { changesRecords?: boolean } = {}): Promise<void> {
    if (!op) return this.sync();
    if (options.changesRecords) this.records.forget();
    await this.db.commit(op);
  }
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
}
