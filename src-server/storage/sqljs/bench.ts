/**
 * The Test Bench's packages and launches in the embedded database: the tables, their journal
 * operations, and the reads. A package's files are not here but in the data directory
 * (package-files.ts): a course can be hundreds of megabytes of video, which would otherwise sit in
 * memory and in the journal.
 */
import { StorageDuplicateError } from '../errors';
import type { DocumentWriteRow, LaunchRecord, PackageRecord, StoredDocumentWrite } from '../storage';
import type { ApplyState } from './apply-state';
import type { Row, Sql } from './sql';

export type BenchOp =
  | { t: 'insertPackage'; storeNum: number; record: PackageRecord }
  | { t: 'deletePackage'; storeNum: number; id: string }
  | { t: 'setPackageReference'; storeNum: number; id: string; reference: Record<string, unknown> | null }
  | { t: 'insertLaunch'; storeNum: number; record: LaunchRecord }
  | { t: 'redeemLaunchFetch'; storeNum: number; id: string; at: string; keyId: string }
  | { t: 'insertDocumentWrite'; storeNum: number; id: number; row: DocumentWriteRow };

/** Created at open when missing, so data directories from before the Test Bench open unchanged. */
const BENCH_SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_packages (
  store_num INTEGER NOT NULL,
  id TEXT NOT NULL,
  store_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  files INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  reference TEXT,
  PRIMARY KEY (store_num, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bench_launches (
  store_num INTEGER NOT NULL,
  id TEXT NOT NULL,
  store_id TEXT NOT NULL,
  package_id TEXT NOT NULL,
  unit_id TEXT NOT NULL,
  registration TEXT NOT NULL,
  actor TEXT NOT NULL,
  session_id TEXT,
  launch_mode TEXT,
  fetch_secret_hash TEXT,
  fetched_at TEXT,
  key_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (store_num, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bench_launches_registration ON bench_launches (store_num, registration);
CREATE TABLE IF NOT EXISTS bench_document_writes (
  store_num INTEGER NOT NULL,
  id INTEGER NOT NULL,
  registration TEXT NOT NULL,
  activity_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  state_id TEXT NOT NULL,
  method TEXT NOT NULL,
  status INTEGER NOT NULL,
  etag_before TEXT,
  etag_after TEXT,
  content_type TEXT,
  content TEXT,
  key_id TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (store_num, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bench_document_writes_registration ON bench_document_writes (store_num, registration, id);
`;

export function ensureBenchTables(sql: Sql): void {
  sql.db.exec(BENCH_SCHEMA);
}

const PACKAGE_COLUMNS = 'id, store_id, kind, title, description, files, bytes, created_at, reference';
const LAUNCH_COLUMNS =
  'id, store_id, package_id, unit_id, registration, actor, session_id, launch_mode, fetch_secret_hash, fetched_at, key_id, created_at';

export function insertPackageOp(sql: Sql, storeNum: number, record: PackageRecord): BenchOp {
  if (sql.first('SELECT 1 FROM bench_packages WHERE store_num = ? AND id = ?', [storeNum, record.id])) {
    throw new StorageDuplicateError('package_exists', `a package with id ${record.id} exists`);
  }
  return { t: 'insertPackage', storeNum, record: pickPackage(record) };
}

export function insertLaunchOp(sql: Sql, storeNum: number, record: LaunchRecord): BenchOp {
  if (sql.first('SELECT 1 FROM bench_launches WHERE store_num = ? AND id = ?', [storeNum, record.id])) {
    throw new StorageDuplicateError('launch_exists', `a launch with id ${record.id} exists`);
  }
  return { t: 'insertLaunch', storeNum, record: pickLaunch(record) };
}

const WRITE_COLUMNS = 'id, registration, activity_id, agent, state_id, method, status, etag_before, etag_after, content_type, content, key_id, at';

/** Its id decided now (the Store's last + 1), so replay inserts the same row. */
export function insertDocumentWriteOp(sql: Sql, storeNum: number, row: DocumentWriteRow): BenchOp {
  const last = sql.first('SELECT max(id) FROM bench_document_writes WHERE store_num = ?', [storeNum])?.[0];
  return { t: 'insertDocumentWrite', storeNum, id: Number(last ?? 0) + 1, row: pickDocumentWrite(row) };
}

export function listDocumentWriteRows(sql: Sql, storeNum: number, registration: string): StoredDocumentWrite[] {
  return sql
    .all(`SELECT ${WRITE_COLUMNS} FROM bench_document_writes WHERE store_num = ? AND registration = ? ORDER BY id`, [storeNum, registration])
    .map((row) => ({
      id: Number(row[0]),
      registration: row[1] as string,
      activityId: row[2] as string,
      agent: row[3] as string,
      stateId: row[4] as string,
      method: row[5] as DocumentWriteRow['method'],
      status: Number(row[6]),
      etagBefore: row[7] as string | null,
      etagAfter: row[8] as string | null,
      contentType: row[9] as string | null,
      content: row[10] as string | null,
      keyId: row[11] as string,
      at: row[12] as string,
    }));
}

function pickDocumentWrite(w: DocumentWriteRow): DocumentWriteRow {
  return {
    registration: w.registration,
    activityId: w.activityId,
    agent: w.agent,
    stateId: w.stateId,
    method: w.method,
    status: w.status,
    etagBefore: w.etagBefore,
    etagAfter: w.etagAfter,
    contentType: w.contentType,
    content: w.content,
    keyId: w.keyId,
    at: w.at,
  };
}

/** Applies a Test Bench operation. The caller wraps it in a transaction. */
export function applyBenchOp(state: ApplyState, op: BenchOp): void {
  const { sql } = state;
  switch (op.t) {
    case 'insertPackage': {
      const p = op.record;
      sql.run(`INSERT INTO bench_packages (store_num, ${PACKAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        op.storeNum,
        p.id,
        p.storeId,
        p.kind,
        p.title,
        JSON.stringify(p.description),
        p.files,
        p.bytes,
        p.createdAt,
        p.reference === null ? null : JSON.stringify(p.reference),
      ]);
      return;
    }
    case 'setPackageReference':
      sql.run('UPDATE bench_packages SET reference = ? WHERE store_num = ? AND id = ?', [
        op.reference === null ? null : JSON.stringify(op.reference),
        op.storeNum,
        op.id,
      ]);
      return;
    case 'deletePackage':
      sql.run('DELETE FROM bench_launches WHERE store_num = ? AND package_id = ?', [op.storeNum, op.id]);
      sql.run('DELETE FROM bench_packages WHERE store_num = ? AND id = ?', [op.storeNum, op.id]);
      return;
    case 'insertLaunch': {
      const l = op.record;
      sql.run(`INSERT INTO bench_launches (store_num, ${LAUNCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        op.storeNum,
        l.id,
        l.storeId,
        l.packageId,
        l.unitId,
        l.registration,
        JSON.stringify(l.actor),
        l.sessionId,
        l.launchMode,
        l.fetchSecretHash,
        l.fetchedAt,
        l.keyId,
        l.createdAt,
      ]);
      return;
    }
    case 'insertDocumentWrite': {
      const w = op.row;
      sql.run(`INSERT INTO bench_document_writes (store_num, ${WRITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        op.storeNum,
        op.id,
        w.registration,
        w.activityId,
        w.agent,
        w.stateId,
        w.method,
        w.status,
        w.etagBefore,
        w.etagAfter,
        w.contentType,
        w.content,
        w.keyId,
        w.at,
      ]);
      return;
    }
    case 'redeemLaunchFetch':
      sql.run('UPDATE bench_launches SET fetched_at = ?, key_id = ? WHERE store_num = ? AND id = ? AND fetched_at IS NULL', [
        op.at,
        op.keyId,
        op.storeNum,
        op.id,
      ]);
      return;
  }
}

export function listPackageRows(sql: Sql, storeNum: number): PackageRecord[] {
  return sql.all(`SELECT ${PACKAGE_COLUMNS} FROM bench_packages WHERE store_num = ? ORDER BY created_at, id`, [storeNum]).map(toPackage);
}

export function findPackageRow(sql: Sql, storeNum: number, id: string): PackageRecord | null {
  const row = sql.first(`SELECT ${PACKAGE_COLUMNS} FROM bench_packages WHERE store_num = ? AND id = ?`, [storeNum, id]);
  return row ? toPackage(row) : null;
}

export function findLaunchRow(sql: Sql, storeNum: number, id: string): LaunchRecord | null {
  const row = sql.first(`SELECT ${LAUNCH_COLUMNS} FROM bench_launches WHERE store_num = ? AND id = ?`, [storeNum, id]);
  return row ? toLaunch(row) : null;
}

/**
 * A Store's launches, or a registration's, in creation order. Sorted here rather than by ORDER BY:
 * SQLite sets a sorter up for every query that has one, ~12 µs even when no row is found, and the
 * LMS asks for a registration's launches after every statement that judges or ends an attempt and
 * every document write in a test Store (lms-reactions.ts, document-writes.ts). The registration's
 * query names its index: without statistics the planner walks all of the Store's launches by the
 * primary key instead.
 */
export function listLaunchRows(sql: Sql, storeNum: number, registration: string | undefined): LaunchRecord[] {
  const rows =
    registration === undefined
      ? sql.all(`SELECT ${LAUNCH_COLUMNS} FROM bench_launches WHERE store_num = ?`, [storeNum])
      : sql.all(`SELECT ${LAUNCH_COLUMNS} FROM bench_launches INDEXED BY bench_launches_registration WHERE store_num = ? AND registration = ?`, [
          storeNum,
          registration,
        ]);
  return rows.map(toLaunch).sort(byCreation);
}

/** created_at, then id: both ASCII, so comparing code units orders them as SQLite's BINARY collation did. */
function byCreation(a: LaunchRecord, b: LaunchRecord): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `<store id>/<package id>` of every package listed: the folders of package files to keep. */
export function listedPackageFolders(sql: Sql): Set<string> {
  return new Set(sql.all('SELECT store_id, id FROM bench_packages').map(([storeId, id]) => `${String(storeId)}/${String(id)}`));
}

/** Copies exactly the interface's fields: nothing else a caller attached reaches the journal. */
function pickPackage(p: PackageRecord): PackageRecord {
  return {
    id: p.id,
    storeId: p.storeId,
    kind: p.kind,
    title: p.title,
    description: p.description,
    files: p.files,
    bytes: p.bytes,
    createdAt: p.createdAt,
    reference: p.reference,
  };
}

function pickLaunch(l: LaunchRecord): LaunchRecord {
  return {
    id: l.id,
    storeId: l.storeId,
    packageId: l.packageId,
    unitId: l.unitId,
    registration: l.registration,
    actor: l.actor,
    sessionId: l.sessionId,
    launchMode: l.launchMode,
    fetchSecretHash: l.fetchSecretHash,
    fetchedAt: l.fetchedAt,
    keyId: l.keyId,
    createdAt: l.createdAt,
  };
}

function toPackage(row: Row): PackageRecord {
  return {
    id: row[0] as string,
    storeId: row[1] as string,
    kind: row[2] as PackageRecord['kind'],
    title: row[3] as string,
    description: JSON.parse(row[4] as string) as Record<string, unknown>,
    files: Number(row[5]),
    bytes: Number(row[6]),
    createdAt: row[7] as string,
    reference: row[8] === null ? null : (JSON.parse(row[8] as string) as Record<string, unknown>),
  };
}

function toLaunch(row: Row): LaunchRecord {
  return {
    id: row[0] as string,
    storeId: row[1] as string,
    packageId: row[2] as string,
    unitId: row[3] as string,
    registration: row[4] as string,
    actor: JSON.parse(row[5] as string) as Record<string, unknown>,
    sessionId: row[6] as string | null,
    launchMode: row[7] as string | null,
    fetchSecretHash: row[8] as string | null,
    fetchedAt: row[9] as string | null,
    keyId: row[10] as string | null,
    createdAt: row[11] as string,
  };
}
