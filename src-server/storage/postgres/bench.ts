/**
 * The Test Bench's packages, their files and launches in PostgreSQL. The files are rows here, not
 * files on one machine's disk, so every service process sharing the database serves them.
 */
import type { DocumentWriteRow, LaunchRecord, PackageRecord, StoredDocumentWrite } from '../storage';
import type { PostgresDatabase, Tx } from './database';

const PACKAGE_COLUMNS = 'id, store_id, kind, title, description, files, bytes, created_at, reference';
const LAUNCH_COLUMNS =
  'id, store_id, package_id, unit_id, registration, actor, session_id, launch_mode, fetch_secret_hash, fetched_at, key_id, created_at';

interface PackageRow {
  id: string;
  store_id: string;
  kind: PackageRecord['kind'];
  title: string;
  description: string;
  files: number;
  bytes: string;
  created_at: string;
  reference: string | null;
}

interface LaunchRow {
  id: string;
  store_id: string;
  package_id: string;
  unit_id: string;
  registration: string;
  actor: string;
  session_id: string | null;
  launch_mode: string | null;
  fetch_secret_hash: string | null;
  fetched_at: string | null;
  key_id: string | null;
  created_at: string;
}

export async function writePackageFileRow(tx: Tx, storeNum: number, packageId: string, path: string, content: Uint8Array): Promise<void> {
  await tx.query(
    `INSERT INTO bench_package_files (store_num, package_id, path, content) VALUES ($1, $2, $3, $4)
     ON CONFLICT (store_num, package_id, path) DO UPDATE SET content = EXCLUDED.content`,
    [storeNum, packageId, path, Buffer.from(content.buffer, content.byteOffset, content.byteLength)],
  );
}

/** A file of a package that is listed (its record inserted), or null. */
export async function readPackageFileRow(db: PostgresDatabase, storeNum: number, packageId: string, path: string): Promise<Uint8Array | null> {
  const rows = await db.query<{ content: Buffer }>(
    `SELECT f.content FROM bench_package_files f
       JOIN bench_packages p ON p.store_num = f.store_num AND p.id = f.package_id
      WHERE f.store_num = $1 AND f.package_id = $2 AND f.path = $3`,
    [storeNum, packageId, path],
  );
  return rows[0]?.content ?? null;
}

export async function discardPackageFileRows(tx: Tx, storeNum: number, packageId: string): Promise<void> {
  await tx.query('DELETE FROM bench_package_files WHERE store_num = $1 AND package_id = $2', [storeNum, packageId]);
}

export async function insertPackageRow(tx: Tx, storeNum: number, p: PackageRecord): Promise<void> {
  await tx.query(`INSERT INTO bench_packages (store_num, ${PACKAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
    storeNum,
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
}

export async function setPackageReferenceRow(tx: Tx, storeNum: number, id: string, reference: Record<string, unknown> | null): Promise<boolean> {
  const { rowCount } = await tx.query('UPDATE bench_packages SET reference = $3 WHERE store_num = $1 AND id = $2', [
    storeNum,
    id,
    reference === null ? null : JSON.stringify(reference),
  ]);
  return rowCount === 1;
}

export async function listPackageRows(db: PostgresDatabase, storeNum: number): Promise<PackageRecord[]> {
  const rows = await db.query<PackageRow>(`SELECT ${PACKAGE_COLUMNS} FROM bench_packages WHERE store_num = $1 ORDER BY created_at, id`, [storeNum]);
  return rows.map(toPackage);
}

export async function findPackageRow(db: PostgresDatabase, storeNum: number, id: string): Promise<PackageRecord | null> {
  const rows = await db.query<PackageRow>(`SELECT ${PACKAGE_COLUMNS} FROM bench_packages WHERE store_num = $1 AND id = $2`, [storeNum, id]);
  return rows[0] ? toPackage(rows[0]) : null;
}

/** Deletes the package, its files and launches; false when there was none. */
export async function deletePackageRows(tx: Tx, storeNum: number, id: string): Promise<boolean> {
  const { rowCount } = await tx.query('DELETE FROM bench_packages WHERE store_num = $1 AND id = $2', [storeNum, id]);
  if (!rowCount) return false;
  await tx.query('DELETE FROM bench_launches WHERE store_num = $1 AND package_id = $2', [storeNum, id]);
  await discardPackageFileRows(tx, storeNum, id);
  return true;
}

export async function insertLaunchRow(tx: Tx, storeNum: number, l: LaunchRecord): Promise<void> {
  await tx.query(`INSERT INTO bench_launches (store_num, ${LAUNCH_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
    storeNum,
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
}

export async function findLaunchRow(db: PostgresDatabase, storeNum: number, id: string): Promise<LaunchRecord | null> {
  const rows = await db.query<LaunchRow>(`SELECT ${LAUNCH_COLUMNS} FROM bench_launches WHERE store_num = $1 AND id = $2`, [storeNum, id]);
  return rows[0] ? toLaunch(rows[0]) : null;
}

export async function listLaunchRows(db: PostgresDatabase, storeNum: number, registration: string | undefined): Promise<LaunchRecord[]> {
  const rows =
    registration === undefined
      ? await db.query<LaunchRow>(`SELECT ${LAUNCH_COLUMNS} FROM bench_launches WHERE store_num = $1 ORDER BY created_at, id`, [storeNum])
      : await db.query<LaunchRow>(
          `SELECT ${LAUNCH_COLUMNS} FROM bench_launches WHERE store_num = $1 AND registration = $2 ORDER BY created_at, id`,
          [storeNum, registration],
        );
  return rows.map(toLaunch);
}

/** The row lock of the UPDATE decides between processes: only one sees fetched_at still null. */
export async function redeemLaunchFetchRow(tx: Tx, storeNum: number, id: string, at: string, keyId: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    'UPDATE bench_launches SET fetched_at = $3, key_id = $4 WHERE store_num = $1 AND id = $2 AND fetched_at IS NULL',
    [storeNum, id, at, keyId],
  );
  return rowCount === 1;
}

function toPackage(row: PackageRow): PackageRecord {
  return {
    id: row.id,
    storeId: row.store_id,
    kind: row.kind,
    title: row.title,
    description: JSON.parse(row.description) as Record<string, unknown>,
    files: row.files,
    bytes: Number(row.bytes),
    createdAt: row.created_at,
    reference: row.reference === null ? null : (JSON.parse(row.reference) as Record<string, unknown>),
  };
}

function toLaunch(row: LaunchRow): LaunchRecord {
  return {
    id: row.id,
    storeId: row.store_id,
    packageId: row.package_id,
    unitId: row.unit_id,
    registration: row.registration,
    actor: JSON.parse(row.actor) as Record<string, unknown>,
    sessionId: row.session_id,
    launchMode: row.launch_mode,
    fetchSecretHash: row.fetch_secret_hash,
    fetchedAt: row.fetched_at,
    keyId: row.key_id,
    createdAt: row.created_at,
  };
}

const WRITE_COLUMNS = 'registration, activity_id, agent, state_id, method, status, etag_before, etag_after, content_type, content, key_id, at';

interface DocumentWriteDbRow {
  id: string;
  registration: string;
  activity_id: string;
  agent: string;
  state_id: string;
  method: DocumentWriteRow['method'];
  status: number;
  etag_before: string | null;
  etag_after: string | null;
  content_type: string | null;
  content: string | null;
  key_id: string;
  at: string;
}

export async function insertDocumentWriteRow(tx: Tx, storeNum: number, w: DocumentWriteRow): Promise<void> {
  await tx.query(`INSERT INTO bench_document_writes (store_num, ${WRITE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
    storeNum,
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
}

export async function listDocumentWriteRows(db: PostgresDatabase, storeNum: number, registration: string): Promise<StoredDocumentWrite[]> {
  const rows = await db.query<DocumentWriteDbRow>(
    `SELECT id, ${WRITE_COLUMNS} FROM bench_document_writes WHERE store_num = $1 AND registration = $2 ORDER BY id`,
    [storeNum, registration],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    registration: row.registration,
    activityId: row.activity_id,
    agent: row.agent,
    stateId: row.state_id,
    method: row.method,
    status: row.status,
    etagBefore: row.etag_before,
    etagAfter: row.etag_after,
    contentType: row.content_type,
    content: row.content,
    keyId: row.key_id,
    at: row.at,
  }));
}
