/**
 * The embedded Storage: the whole database lives in sql.js (SQLite compiled to WebAssembly, in
 * memory); durability comes from an append-only journal with group commit and from snapshots.
 * See ../README.md for the file formats, recovery and the crash-window reasoning.
 *
 * Every write runs the same way, with no await between its steps, so writes are atomic with
 * respect to each other: check (conflicts, existence) → encode the journal record → apply it in
 * one SQL transaction → queue the record → await the group flush → resolve.
 */
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import initSqlJs from 'sql.js';
import type { SqlJsStatic } from 'sql.js';
import { StorageDuplicateError, StorageNotFoundError, StorageUnavailableError } from '../errors';
import type {
  ApiKeyPatch,
  ApiKeyRecord,
  ExplorerPage,
  ExplorerQuery,
  ExplorerRecord,
  IndexTerm,
  InsertStatementsResult,
  RejectionRow,
  StatementPage,
  StatementQuery,
  StatementRow,
  Storage,
  StorageStats,
  StoreRecord,
  StoredStatement,
} from '../storage';
import type { DocumentContent, DocumentKey, DocumentSet, StoredDocument } from '../storage';
import type { ActivityRecord } from '../storage';
import { findActivityRow, mergeActivityDefinitions } from './activities';
import {
  countDocumentRows,
  currentEtag,
  deleteDocumentsOp,
  findDocumentRow,
  listDocumentIdRows,
  upsertDocumentOp,
} from './documents';
import { nodeStorageFs } from './fs';
import type { StorageFs } from './fs';
import { decodeJournal, encodeRecord, isJournalFileName, journalFileName } from './journal-format';
import { JournalWriter } from './journal-writer';
import { lockDataDir } from './lock';
import type { DataDirLock } from './lock';
import { TOUCH_API_KEY_SQL, applyOp } from './ops';
import type { ApplyState, Op, StatementOpRow, StorePatch } from './ops';
import { STATEMENT_COLUMNS, explorerRejectionQuery, explorerStatementQuery, statementQuery } from './queries';
import { hasTargetableFilter, targetingStatementQuery } from './statement-targets';
import type { BuiltQuery } from './queries';
import { ensureSchema, writeMeta } from './schema';
import type { IngestionQuery, IngestionStats } from '../storage';
import { ingestionReportRows } from './ingestion';
import { Sql } from './sql';
import type { Row } from './sql';

export { DataDirLockedError } from './lock';
export { StorageUnavailableError } from '../storage';

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
}

export const SNAPSHOT_FILE = 'lore.sqlite';
const SNAPSHOT_TEMP_FILE = 'lore.sqlite.tmp';
const DEFAULT_SNAPSHOT_THRESHOLD_BYTES = 64 * 1024 * 1024;
const DEFAULT_TOUCH_FLUSH_INTERVAL_MS = 5_000;
/** After a failed flush, the disk is retried after this delay, doubling up to RETRY_MAX_MS. */
const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** Written and fsynced to learn whether the disk takes writes again (a full disk does not). */
const PROBE_FILE = 'lore.probe';
const PROBE_BYTES = new Uint8Array(64 * 1024);

const sqlJsByWasm = new Map<string, Promise<SqlJsStatic>>();

function loadSqlJs(wasmPath: string): Promise<SqlJsStatic> {
  let loading = sqlJsByWasm.get(wasmPath);
  if (!loading) {
    loading = fsp.readFile(wasmPath).then((bytes) =>
      initSqlJs({ wasmBinary: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }),
    );
    sqlJsByWasm.set(wasmPath, loading);
    loading.catch(() => sqlJsByWasm.delete(wasmPath));
  }
  return loading;
}

/** Opens (creating when needed) the data directory: lock, snapshot, journal replay. */
export async function openSqljsStorage(options: SqljsStorageOptions): Promise<SqljsStorage> {
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
    return new SqljsStorage({ options, SQL, fs, dataDir, lock, log, loaded });
  } catch (err) {
    await lock.release();
    throw err;
  }
}

interface LoadContext {
  SQL: SqlJsStatic;
  fs: StorageFs;
  dataDir: string;
  log: (msg: string) => void;
  /** Journal files to read only up to this size (after a failed flush: the bytes known durable). */
  durableSizes: Map<string, number>;
}

interface LoadedDatabase {
  state: ApplyState;
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
async function loadDatabase(ctx: LoadContext): Promise<LoadedDatabase> {
  const snapshotPath = path.join(ctx.dataDir, SNAPSHOT_FILE);
  const image = await ctx.fs.readFile(snapshotPath);
  const sql = new Sql(new ctx.SQL.Database(image));
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
    const state: ApplyState = { sql, storeNums: new Map(), counts: new Map(), lastSeq: meta.lastSeq };
    loadCaches(state);
    const journal = await replayJournals(ctx, state, meta.journalSeq);
    return { state, snapshotSeq: meta.journalSeq, snapshotExists: image !== null, ...journal };
  } catch (err) {
    sql.close();
    throw err;
  }
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
        state.sql.transaction(() => applyOp(state, record.op));
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
      const handle = await ctx.fs.open(file, { truncate: false });
      try {
        await handle.truncate(decoded.goodBytes);
        await handle.datasync();
      } finally {
        await handle.close();
      }
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

/** Rebuilds the in-memory lookups from the database. */
function loadCaches(state: ApplyState): void {
  const { sql } = state;
  state.storeNums.clear();
  state.counts.clear();
  for (const [id, num] of sql.all('SELECT id, num FROM stores')) {
    state.storeNums.set(id as string, num as number);
    state.counts.set(num as number, { statements: 0, rejections: 0 });
  }
  for (const [num, n] of sql.all('SELECT store_num, count(*) FROM statements GROUP BY store_num')) {
    const counts = state.counts.get(num as number);
    if (counts) counts.statements = n as number;
  }
  for (const [num, n] of sql.all('SELECT store_num, count(*) FROM rejections GROUP BY store_num')) {
    const counts = state.counts.get(num as number);
    if (counts) counts.rejections = n as number;
  }
  const [maxStatement, maxRejection] = sql.first(
    'SELECT (SELECT coalesce(max(seq), 0) FROM statements), (SELECT coalesce(max(seq), 0) FROM rejections)',
  )!;
  state.lastSeq = Math.max(state.lastSeq, maxStatement as number, maxRejection as number);
}

interface StorageInit {
  options: SqljsStorageOptions;
  SQL: SqlJsStatic;
  fs: StorageFs;
  dataDir: string;
  lock: DataDirLock;
  log: (msg: string) => void;
  loaded: LoadedDatabase;
}

const STORE_COLUMNS = 'id, slug, name, environment, created_at, updated_at';
const API_KEY_COLUMNS =
  'id, store_id, name, secret_hash, scopes, environment, created_at, last_used_at, expires_at, revoked_at, replaced_by';

export class SqljsStorage implements Storage {
  readonly dataDir: string;
  private readonly SQL: SqlJsStatic;
  private readonly fs: StorageFs;
  private readonly lock: DataDirLock;
  private readonly log: (msg: string) => void;
  private readonly snapshotThresholdBytes: number;
  private readonly touchTimer: NodeJS.Timeout;
  // The loaded database; replaced as a whole when a failed flush makes the storage reload.
  private state!: ApplyState;
  private sql!: Sql;
  private writer!: JournalWriter;
  /** The journal seq of the newest record applied. */
  private journalSeq = 0;
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
  /** Set from a failed flush until the storage has reloaded and the disk takes writes again. */
  private failure: StorageUnavailableError | null = null;
  /** The in-memory database holds changes that never reached the disk: reload before writing. */
  private stale = false;
  private recovering: Promise<void> | null = null;
  private retryDelayMs = RETRY_MIN_MS;
  private nextRetryAt = 0;

  constructor(init: StorageInit) {
    this.dataDir = init.dataDir;
    this.SQL = init.SQL;
    this.fs = init.fs;
    this.lock = init.lock;
    this.log = init.log;
    this.snapshotThresholdBytes = init.options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD_BYTES;
    this.install(init.loaded);
    this.touchTimer = setInterval(() => {
      this.flushTouches().catch((err: unknown) => this.log(`could not journal API-key last-used times: ${String(err)}`));
    }, init.options.touchFlushIntervalMs ?? DEFAULT_TOUCH_FLUSH_INTERVAL_MS);
    this.touchTimer.unref();
  }

  private install(loaded: LoadedDatabase): void {
    this.state = loaded.state;
    this.sql = loaded.state.sql;
    this.journalSeq = loaded.journalSeq;
    this.snapshotSeq = loaded.snapshotSeq;
    this.snapshotExists = loaded.snapshotExists;
    this.olderJournals = loaded.older;
    this.writer = new JournalWriter({
      fs: this.fs,
      dir: this.dataDir,
      ...loaded.current,
      onFlushed: () => this.maybeScheduleSnapshot(),
      onFailed: (failure) => this.onJournalFailure(failure),
    });
    // Last-used times not journaled yet were applied to the database being replaced.
    for (const [id, lastUsedAt] of this.pendingTouches) this.sql.run(TOUCH_API_KEY_SQL, [id, lastUsedAt]);
  }

  /** Bytes in the current journal file (what the snapshot threshold is compared with). */
  get journalBytes(): number {
    return this.writer.currentBytes;
  }

  /** Bytes of the database image: what a snapshot writes. */
  get databaseBytes(): number {
    const [pages, pageSize] = this.sql.first(
      'SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()',
    )!;
    return (pages as number) * (pageSize as number);
  }

  // Stores

  async insertStore(store: StoreRecord): Promise<void> {
    await this.writable();
    if (this.state.storeNums.has(store.id)) {
      throw new StorageDuplicateError('store_exists', `a Store with id ${store.id} exists`);
    }
    if (this.sql.first('SELECT 1 FROM stores WHERE slug = ?', [store.slug])) {
      throw new StorageDuplicateError('slug_taken', `the slug ${store.slug} is taken`);
    }
    const [num] = this.sql.first('SELECT coalesce(max(num), 0) + 1 FROM stores')!;
    await this.commit({ t: 'insertStore', num: num as number, store: pickStore(store) });
  }

  async findStoreBySlug(slug: string): Promise<StoreRecord | null> {
    this.assertOpen();
    const row = this.sql.first(`SELECT ${STORE_COLUMNS} FROM stores WHERE slug = ?`, [slug]);
    return row ? toStore(row) : null;
  }

  async findStoreById(id: string): Promise<StoreRecord | null> {
    this.assertOpen();
    const row = this.sql.first(`SELECT ${STORE_COLUMNS} FROM stores WHERE id = ?`, [id]);
    return row ? toStore(row) : null;
  }

  async listStores(): Promise<StoreRecord[]> {
    this.assertOpen();
    return this.sql.all(`SELECT ${STORE_COLUMNS} FROM stores ORDER BY num`).map(toStore);
  }

  async updateStore(id: string, patch: StorePatch): Promise<void> {
    await this.writable();
    this.storeNum(id);
    const defined = definedOnly(patch, ['name', 'updatedAt']);
    if (Object.keys(defined).length === 0) return;
    await this.commit({ t: 'updateStore', id, patch: defined });
  }

  async deleteStore(id: string): Promise<void> {
    await this.writable();
    if (!this.state.storeNums.has(id)) return;
    await this.commit({ t: 'deleteStore', id });
  }

  // API keys

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.writable();
    this.storeNum(key.storeId);
    if (this.sql.first('SELECT 1 FROM api_keys WHERE id = ?', [key.id])) {
      throw new StorageDuplicateError('api_key_exists', `an API key with id ${key.id} exists`);
    }
    await this.commit({ t: 'insertApiKey', key: pickApiKey(key) });
  }

  async findApiKey(id: string): Promise<ApiKeyRecord | null> {
    this.assertOpen();
    const row = this.sql.first(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`, [id]);
    return row ? toApiKey(row) : null;
  }

  async listApiKeys(storeId: string): Promise<ApiKeyRecord[]> {
    this.assertOpen();
    return this.sql
      .all(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE store_id = ? ORDER BY created_at, id`, [storeId])
      .map(toApiKey);
  }

  /**
   * A patch of only a (non-null) `lastUsedAt` is the per-request "key used" mark: it is applied in
   * memory at once and journaled in one record per interval (touchFlushIntervalMs) for all keys,
   * instead of one durable write per request. A crash loses at most that interval of last-used
   * times, never anything else. It never fails for a full disk, so authentication keeps working.
   */
  async updateApiKey(id: string, patch: ApiKeyPatch): Promise<void> {
    const defined = definedOnly(patch, ['name', 'lastUsedAt', 'expiresAt', 'revokedAt', 'replacedBy']);
    const keys = Object.keys(defined);
    if (keys.length === 1 && typeof defined.lastUsedAt === 'string') {
      this.assertOpen();
      this.assertApiKey(id);
      this.sql.run(TOUCH_API_KEY_SQL, [id, defined.lastUsedAt]);
      this.noteTouch(id, defined.lastUsedAt);
      return;
    }
    await this.writable();
    this.assertApiKey(id);
    if (keys.length === 0) return;
    await this.commit({ t: 'updateApiKey', id, patch: defined });
  }

  // Statements

  async insertStatements(storeId: string, rows: StatementRow[]): Promise<InsertStatementsResult> {
    await this.writable();
    const storeNum = this.storeNum(storeId);
    const inserted: string[] = [];
    const unchanged: string[] = [];
    const toInsert: StatementOpRow[] = [];
    const fresh: StatementRow[] = [];
    const inBatch = new Map<string, string>();
    let seq = this.state.lastSeq;
    for (const [index, row] of rows.entries()) {
      const existing =
        inBatch.get(row.statementId) ??
        (this.sql.first('SELECT signature FROM statements WHERE store_num = ? AND statement_id = ?', [
          storeNum,
          row.statementId,
        ])?.[0] as string | undefined);
      if (existing !== undefined) {
        if (existing !== row.signature) return { ok: false, conflict: { index, statementId: row.statementId } };
        unchanged.push(row.statementId);
        continue;
      }
      inBatch.set(row.statementId, row.signature);
      inserted.push(row.statementId);
      toInsert.push(toOpRow(row, ++seq));
      fresh.push(row);
    }
    if (toInsert.length === 0) {
      // An unchanged row may be one whose own write is still on its way to the disk.
      await this.writer.sync();
    } else {
      // The Activity definitions the new rows change, merged now so the record carries them whole.
      const activities = mergeActivityDefinitions(this.sql, storeNum, fresh);
      await this.commit({ t: 'insertStatements', storeNum, rows: toInsert, ...(activities.length > 0 ? { activities } : {}) });
    }
    return { ok: true, inserted, unchanged };
  }

  async findStatement(storeId: string, statementId: string): Promise<StoredStatement | null> {
    this.assertOpen();
    const storeNum = this.state.storeNums.get(storeId);
    if (storeNum === undefined) return null;
    const row = this.sql.first(
      `SELECT ${STATEMENT_COLUMNS} FROM statements AS s WHERE s.store_num = ? AND s.statement_id = ?`,
      [storeNum, statementId],
    );
    return row ? toStoredStatement(row) : null;
  }

  async queryStatements(storeId: string, query: StatementQuery): Promise<StatementPage> {
    this.assertOpen();
    const limit = checkLimit(query.limit);
    const storeNum = this.state.storeNums.get(storeId);
    if (storeNum === undefined) return { statements: [], nextAfterSeq: null };
    let rows = this.query(statementQuery(storeNum, query, limit + 1));
    if (hasTargetableFilter(query)) {
      // Statements that meet the filters through their StatementRef target (statement-targets.ts):
      // the page is the first limit + 1 of both halves, in the query's order, each row once.
      const seen = new Set(rows.map((row) => row[0] as number));
      const targeting = this.query(targetingStatementQuery(storeNum, query, limit + 1)).filter((row) => !seen.has(row[0] as number));
      if (targeting.length > 0) {
        const direction = query.ascending ? 1 : -1;
        rows = [...rows, ...targeting].sort((a, b) => direction * ((a[0] as number) - (b[0] as number))).slice(0, limit + 1);
      }
    }
    const statements = rows.slice(0, limit).map(toStoredStatement);
    return {
      statements,
      nextAfterSeq: rows.length > limit ? statements[statements.length - 1]!.seq : null,
    };
  }

  async currentSeq(): Promise<number> {
    this.assertOpen();
    return this.state.lastSeq;
  }

  // Activities (written by insertStatements; table and merge in activities.ts)

  async findActivity(storeId: string, activityId: string): Promise<ActivityRecord | null> {
    this.assertOpen();
    const storeNum = this.state.storeNums.get(storeId);
    return storeNum === undefined ? null : findActivityRow(this.sql, storeNum, activityId);
  }

  /** Raw attachments by sha2 (xAPI §2.4.11). */
  async findAttachments(
    storeId: string,
    sha2s: string[],
  ): Promise<Array<{ sha2: string; contentType: string; content: Uint8Array }>> {
    this.assertOpen();
    const storeNum = this.state.storeNums.get(storeId);
    if (storeNum === undefined) return [];
    const found = [];
    for (const sha2 of new Set(sha2s)) {
      const row = this.sql.first('SELECT content_type, content FROM attachments WHERE store_num = ? AND sha2 = ?', [
        storeNum,
        sha2,
      ]);
      if (row) found.push({ sha2, contentType: row[0] as string, content: row[1] as Uint8Array });
    }
    return found;
  }

  // Documents (State, Activity Profile, Agent Profile): table and operations in documents.ts

  async findDocument(storeId: string, key: DocumentKey): Promise<StoredDocument | null> {
    this.assertOpen();
    const storeNum = this.state.storeNums.get(storeId);
    return storeNum === undefined ? null : findDocumentRow(this.sql, storeNum, key);
  }

  async listDocumentIds(storeId: string, set: DocumentSet): Promise<string[]> {
    this.assertOpen();
    const storeNum = this.state.storeNums.get(storeId);
    return storeNum === undefined ? [] : listDocumentIdRows(this.sql, storeNum, set);
  }

  async upsertDocument(storeId: string, key: DocumentKey, document: DocumentContent, ifCurrent: string | null): Promise<boolean> {
    await this.writable();
    const storeNum = this.storeNum(storeId);
    // Compare and write with no await between: another write cannot slip in.
    if (currentEtag(this.sql, storeNum, key) !== ifCurrent) return false;
    await this.commit(upsertDocumentOp(storeNum, key, document));
    return true;
  }

  async deleteDocument(storeId: string, key: DocumentKey, ifCurrent?: string): Promise<boolean> {
    await this.writable();
    const storeNum = this.storeNum(storeId);
    const current = currentEtag(this.sql, storeNum, key);
    if (current === null || (ifCurrent !== undefined && current !== ifCurrent)) return false;
    await this.commit(deleteDocumentsOp(storeNum, key, key.id));
    return true;
  }

  async deleteDocuments(storeId: string, set: DocumentSet): Promise<number> {
    await this.writable();
    const storeNum = this.storeNum(storeId);
    const count = countDocumentRows(this.sql, storeNum, set);
    if (count > 0) await this.commit(deleteDocumentsOp(storeNum, set));
    return count;
  }

  // Rejections and the Statement Explorer

  async insertRejections(storeId: string, rows: RejectionRow[]): Promise<void> {
    await this.writable();
    const storeNum = this.storeNum(storeId);
    if (rows.length === 0) return;
    const first = this.state.lastSeq + 1;
    await this.commit({
      t: 'insertRejections',
      storeNum,
      rows: rows.map((r, i) => ({
        seq: first + i,
        receivedAt: r.receivedAt,
        keyId: r.keyId,
        statementId: r.statementId,
        payload: r.payload,
        error: r.error,
        agent: r.agent,
        verbId: r.verbId,
        activityId: r.activityId,
      })),
    });
  }

  async searchExplorer(storeId: string, query: ExplorerQuery): Promise<ExplorerPage> {
    this.assertOpen();
    const limit = checkLimit(query.limit);
    const storeNum = this.state.storeNums.get(storeId);
    if (storeNum === undefined) return { records: [], nextBeforeSeq: null };
    const records: ExplorerRecord[] = [];
    if (query.status !== 'rejected') {
      for (const row of this.query(explorerStatementQuery(storeNum, query, limit + 1))) {
        const s = toStoredStatement(row);
        records.push({
          seq: s.seq,
          status: s.voided ? 'voided' : 'accepted',
          statementId: s.statementId,
          receivedAt: s.stored,
          keyId: s.keyId,
          statement: s.statement,
          error: null,
        });
      }
    }
    if (query.status === undefined || query.status === 'rejected') {
      for (const [seq, statementId, payload, receivedAt, keyId, error] of this.query(
        explorerRejectionQuery(storeNum, query, limit + 1),
      )) {
        records.push({
          seq: seq as number,
          status: 'rejected',
          statementId: statementId as string | null,
          receivedAt: receivedAt as string,
          keyId: keyId as string,
          statement: JSON.parse(payload as string),
          error: JSON.parse(error as string) as ExplorerRecord['error'],
        });
      }
    }
    // Each half is newest first and holds up to limit + 1 rows: the page is the newest `limit` of both.
    records.sort((a, b) => b.seq - a.seq);
    const page = records.slice(0, limit);
    return { records: page, nextBeforeSeq: records.length > limit ? page[page.length - 1]!.seq : null };
  }

  // Console: statistics and maintenance (ingestion.ts, empty-store.ts)

  async emptyStore(storeId: string): Promise<void> {
    await this.writable();
    await this.commit({ t: 'emptyStore', storeNum: this.storeNum(storeId) });
  }

  async ingestionReport(query: IngestionQuery): Promise<IngestionStats> {
    this.assertOpen();
    if (query.storeId === undefined) return ingestionReportRows(this.sql, null, query);
    const storeNum = this.state.storeNums.get(query.storeId);
    if (storeNum === undefined) return { series: [], totals: { accepted: 0, voided: 0, rejected: 0 }, topVerbs: [], topActivities: [] };
    return ingestionReportRows(this.sql, storeNum, query);
  }

  async stats(storeId?: string): Promise<StorageStats> {
    this.assertOpen();
    let statements = 0;
    let rejections = 0;
    if (storeId === undefined) {
      for (const counts of this.state.counts.values()) {
        statements += counts.statements;
        rejections += counts.rejections;
      }
    } else {
      const storeNum = this.state.storeNums.get(storeId);
      const counts = storeNum === undefined ? undefined : this.state.counts.get(storeNum);
      statements = counts?.statements ?? 0;
      rejections = counts?.rejections ?? 0;
    }
    return { statements, rejections, databaseBytes: this.databaseBytes };
  }

  // Durability

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
      this.sql.close();
      await this.lock.release();
    }
  }

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
    return this.snapshotting;
  }

  private async writeSnapshot(): Promise<void> {
    if (this.failure) throw this.failure;
    const journalSeq = this.journalSeq;
    if (journalSeq === this.snapshotSeq && this.olderJournals.length === 0 && this.snapshotExists) return;
    // Synchronous from here to the rotation: no write can slip between the image and the new file.
    writeMeta(this.sql, { journalSeq, lastSeq: this.state.lastSeq });
    const image = this.sql.db.export();
    this.sql.resetCache();
    const nextJournal = path.join(this.dataDir, journalFileName(journalSeq + 1));
    // The current file already starts after the image when nothing was written since the last rotation.
    const rotate = nextJournal !== this.writer.currentPath;
    const covered = rotate ? [...this.olderJournals, this.writer.currentPath] : [...this.olderJournals];
    this.olderJournals = covered;
    const previousDurable = rotate ? this.writer.rotate(nextJournal) : this.writer.sync();

    const temp = path.join(this.dataDir, SNAPSHOT_TEMP_FILE);
    try {
      // The image may hold records still in flight: it must not replace the old one before they are durable.
      await previousDurable;
      await this.writeFileDurably(temp, image);
      await this.fs.rename(temp, path.join(this.dataDir, SNAPSHOT_FILE));
      await this.fs.syncDir(this.dataDir);
    } catch (err) {
      await this.fs.unlink(temp).catch(() => {});
      throw err;
    }
    this.snapshotSeq = journalSeq;
    this.snapshotExists = true;
    // From here a crash leaves old journal files beside the new image: replay skips their records.
    for (const file of covered) await this.fs.unlink(file);
    this.olderJournals = this.olderJournals.filter((file) => !covered.includes(file));
    this.log(`snapshot written: ${image.length} bytes, journal seq ${journalSeq}`);
  }

  private async writeFileDurably(file: string, data: Uint8Array): Promise<void> {
    const handle = await this.fs.open(file, { truncate: true });
    try {
      await handle.write(data, 0);
      await handle.datasync();
    } finally {
      await handle.close();
    }
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
      // Kept for the next interval (and re-applied if the failure makes the storage reload).
      for (const [id, lastUsedAt] of touches) this.noteTouch(id, lastUsedAt);
      throw err;
    }
  }

  private noteTouch(id: string, lastUsedAt: string): void {
    const previous = this.pendingTouches.get(id);
    if (previous === undefined || previous < lastUsedAt) this.pendingTouches.set(id, lastUsedAt);
  }

  // Internals

  /** The write path: apply, then queue the record and wait for it to be durable. */
  private commit(op: Op): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const j = this.journalSeq + 1;
    const record = encodeRecord({ j, op });
    try {
      this.sql.transaction(() => applyOp(this.state, op));
    } catch (err) {
      loadCaches(this.state);
      throw err;
    }
    this.journalSeq = j;
    return this.writer.append(record);
  }

  private async writable(): Promise<void> {
    this.assertOpen();
    if (!this.failure) return;
    if (this.recovering || Date.now() < this.nextRetryAt) throw this.failure;
    await this.recover();
  }

  /**
   * A flush failed. Its writes were applied in memory but their callers are told
   * StorageUnavailableError, so they must not survive: the storage reloads the durable state
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
        await this.writeFileDurably(path.join(this.dataDir, PROBE_FILE), PROBE_BYTES);
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
    this.sql.close();
    this.install(loaded);
    this.stale = false;
    this.log(`reloaded the durable state (journal seq ${loaded.journalSeq})`);
    // Cut them off the files too, so a crash cannot bring them back. On a sick disk this may fail:
    // the new writer cuts them before its first write anyway.
    for (const [file, size] of durableSizes) {
      try {
        const handle = await this.fs.open(file, { truncate: false });
        try {
          await handle.truncate(size);
          await handle.datasync();
        } finally {
          await handle.close();
        }
      } catch {
        // Best effort, see above.
      }
    }
  }

  private assertOpen(): void {
    if (this.closing) throw new StorageUnavailableError('the storage is closed');
  }

  /** The Store's number, or StorageNotFoundError. */
  private storeNum(storeId: string): number {
    const num = this.state.storeNums.get(storeId);
    if (num === undefined) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
    return num;
  }

  private assertApiKey(id: string): void {
    if (!this.sql.first('SELECT 1 FROM api_keys WHERE id = ?', [id])) {
      throw new StorageNotFoundError('api_key_not_found', `no API key with id ${id}`);
    }
  }

  private query(q: BuiltQuery): Row[] {
    return this.sql.all(q.sql, q.params);
  }
}

function checkLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
  return limit;
}

/** The fields of `patch` that are set, among `keys` (undefined means "leave as it is"). */
function definedOnly<P extends object>(patch: P, keys: Array<keyof P>): Partial<P> {
  const out: Partial<P> = {};
  for (const key of keys) if (patch[key] !== undefined) out[key] = patch[key];
  return out;
}

/** Copies exactly the interface's fields: nothing else a caller attached reaches the journal. */
function pickStore(s: StoreRecord): StoreRecord {
  return {
    id: s.id,
    slug: s.slug,
    name: s.name,
    environment: s.environment,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

function pickApiKey(k: ApiKeyRecord): ApiKeyRecord {
  return {
    id: k.id,
    storeId: k.storeId,
    name: k.name,
    secretHash: k.secretHash,
    scopes: [...k.scopes],
    environment: k.environment,
    createdAt: k.createdAt,
    lastUsedAt: k.lastUsedAt,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
    replacedBy: k.replacedBy,
  };
}

function toOpRow(row: StatementRow, seq: number): StatementOpRow {
  const opRow: StatementOpRow = {
    seq,
    statementId: row.statementId,
    statement: row.statement,
    signature: row.signature,
    stored: row.stored,
    keyId: row.keyId,
    verbId: row.verbId,
    registration: row.registration,
    voidsStatementId: row.voidsStatementId,
    targetStatementId: row.targetStatementId ?? null,
    terms: dedupeTerms(row.terms),
  };
  if (row.attachments?.length) {
    opRow.attachments = row.attachments.map((a) => ({
      sha2: a.sha2,
      contentType: a.contentType,
      content: Buffer.from(a.content).toString('base64'),
    }));
  }
  return opRow;
}

/** One term per (kind, value): primary when any of its occurrences is. */
function dedupeTerms(terms: IndexTerm[]): IndexTerm[] {
  const byKey = new Map<string, IndexTerm>();
  for (const term of terms) {
    const key = `${term.kind}\u0000${term.value}`;
    const seen = byKey.get(key);
    if (!seen || (term.primary && !seen.primary)) byKey.set(key, { kind: term.kind, value: term.value, primary: term.primary });
  }
  return [...byKey.values()];
}

function toStore(row: Row): StoreRecord {
  return {
    id: row[0] as string,
    slug: row[1] as string,
    name: row[2] as string,
    environment: row[3] as StoreRecord['environment'],
    createdAt: row[4] as string,
    updatedAt: row[5] as string,
  };
}

function toApiKey(row: Row): ApiKeyRecord {
  return {
    id: row[0] as string,
    storeId: row[1] as string,
    name: row[2] as string,
    secretHash: row[3] as string,
    scopes: JSON.parse(row[4] as string) as string[],
    environment: row[5] as ApiKeyRecord['environment'],
    createdAt: row[6] as string,
    lastUsedAt: row[7] as string | null,
    expiresAt: row[8] as string | null,
    revokedAt: row[9] as string | null,
    replacedBy: row[10] as string | null,
  };
}

/** Maps a row in STATEMENT_COLUMNS order. */
function toStoredStatement(row: Row): StoredStatement {
  return {
    seq: row[0] as number,
    statementId: row[1] as string,
    statement: JSON.parse(row[2] as string) as Record<string, unknown>,
    stored: row[3] as string,
    voided: row[4] === 1,
    keyId: row[5] as string,
  };
}
