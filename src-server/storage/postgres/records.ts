/**
 * Stores and API keys in PostgreSQL: their rows, the checks of their writes, and the deletion of
 * everything a Store owns. Other tables refer to a Store by its number (`stores.num`).
 */
import type { ApiKeyPatch, ApiKeyRecord, StoreRecord } from '../storage';
import { StorageDuplicateError, StorageNotFoundError } from '../errors';
import type { PostgresDatabase, Tx } from './database';

export type StorePatch = Partial<Pick<StoreRecord, 'name' | 'updatedAt' | 'limits' | 'retention'>>;

const STORE_COLUMNS = 'num, id, slug, name, environment, created_at, updated_at, limits, retention';
const KEY_COLUMNS = 'id, store_id, name, secret_hash, scopes, environment, created_at, last_used_at, expires_at, revoked_at, replaced_by';

interface StoreRow {
  num: number;
  id: string;
  slug: string;
  name: string;
  environment: StoreRecord['environment'];
  created_at: string;
  updated_at: string;
  limits: string | null;
  retention: string | null;
}

interface KeyRow {
  id: string;
  store_id: string;
  name: string;
  secret_hash: string;
  scopes: string;
  environment: ApiKeyRecord['environment'];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  replaced_by: string | null;
}

/**
 * Every table that holds a Store's rows, by `store_num`: emptied with the Store. Its keys and the
 * Test Bench's packages stay, and go (by cascade) only with the Store.
 */
const STORE_TABLES = [
  'term_postings',
  'terms',
  'statements',
  'attachments',
  'activities',
  'explorer_names',
  'explorer_name_words',
  'rejections',
  'documents',
  'refusals',
  'ingestion_minutes',
  'ingestion_top',
  'ingestion_totals',
  'bench_launches',
  'bench_document_writes',
  'forwarder_dead_letters',
];

function limitsColumn(limits: StoreRecord['limits']): string | null {
  return limits === undefined || Object.keys(limits).length === 0 ? null : JSON.stringify(limits);
}

function toStore(row: StoreRow): StoreRecord {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    environment: row.environment,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.limits !== null ? { limits: JSON.parse(row.limits) as StoreRecord['limits'] } : {}),
    ...(row.retention !== null ? { retention: JSON.parse(row.retention) as StoreRecord['retention'] } : {}),
  };
}

function toApiKey(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    storeId: row.store_id,
    name: row.name,
    secretHash: row.secret_hash,
    scopes: JSON.parse(row.scopes) as string[],
    environment: row.environment,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    replacedBy: row.replaced_by,
  };
}

/** `inTransaction`: runs in each write's transaction, before COMMIT (the change notification). */
type InTransaction = (tx: Tx) => Promise<void>;

export async function insertStoreRow(db: PostgresDatabase, store: StoreRecord, inTransaction: InTransaction): Promise<void> {
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; slug: string }>('SELECT id, slug FROM stores WHERE id = $1 OR slug = $2', [store.id, store.slug]);
    if (rows.some((row) => row.id === store.id)) throw new StorageDuplicateError('store_exists', `a Store with id ${store.id} exists`);
    if (rows.length > 0) throw new StorageDuplicateError('slug_taken', `the slug ${store.slug} is taken`);
    // Two processes creating the same slug at once: the unique index decides, the retry reports it.
    await tx.query(
      'INSERT INTO stores (id, slug, name, environment, created_at, updated_at, limits, retention) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [store.id, store.slug, store.name, store.environment, store.createdAt, store.updatedAt, limitsColumn(store.limits), store.retention === undefined ? null : JSON.stringify(store.retention)],
    );
    await inTransaction(tx);
  });
}

export async function findStoreRow(db: PostgresDatabase, by: 'id' | 'slug', value: string): Promise<(StoreRecord & { num: number }) | null> {
  const [row] = await db.query<StoreRow>(`SELECT ${STORE_COLUMNS} FROM stores WHERE ${by} = $1`, [value]);
  return row ? { ...toStore(row), num: row.num } : null;
}

/** Every Store with its number, in the order they were created. */
export async function listStoreRows(db: PostgresDatabase): Promise<Array<StoreRecord & { num: number }>> {
  return (await db.query<StoreRow>(`SELECT ${STORE_COLUMNS} FROM stores ORDER BY num`)).map((row) => ({ ...toStore(row), num: row.num }));
}

export async function updateStoreRow(db: PostgresDatabase, id: string, patch: StorePatch, inTransaction: InTransaction): Promise<void> {
  await db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE stores SET name = coalesce($2, name), updated_at = coalesce($3, updated_at),
         limits = CASE WHEN $4::boolean THEN $5 ELSE limits END,
         retention = CASE WHEN $6::boolean THEN $7 ELSE retention END WHERE id = $1`,
      [
        id,
        patch.name ?? null,
        patch.updatedAt ?? null,
        patch.limits !== undefined,
        limitsColumn(patch.limits),
        patch.retention !== undefined,
        patch.retention === undefined ? null : JSON.stringify(patch.retention),
      ],
    );
    if (rowCount === 0) throw new StorageNotFoundError('store_not_found', `no Store with id ${id}`);
    await inTransaction(tx);
  });
}

/** Deletes every row the Store owns; with `andStore`, the Store and its keys too. */
export async function deleteStoreRows(tx: Tx, storeNum: number, andStore: boolean): Promise<void> {
  for (const table of STORE_TABLES) await tx.query(`DELETE FROM ${table} WHERE store_num = $1`, [storeNum]);
  if (andStore) await tx.query('DELETE FROM stores WHERE num = $1', [storeNum]); // keys cascade
}

export async function insertApiKeyRow(db: PostgresDatabase, key: ApiKeyRecord, inTransaction: InTransaction): Promise<void> {
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ num: number }>('SELECT num FROM stores WHERE id = $1', [key.storeId]);
    const store = rows[0];
    if (!store) throw new StorageNotFoundError('store_not_found', `no Store with id ${key.storeId}`);
    const inserted = await tx.query(
      `INSERT INTO api_keys (id, store_num, store_id, name, secret_hash, scopes, environment, created_at, last_used_at,
         expires_at, revoked_at, replaced_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (id) DO NOTHING`,
      [
        key.id,
        store.num,
        key.storeId,
        key.name,
        key.secretHash,
        JSON.stringify(key.scopes),
        key.environment,
        key.createdAt,
        key.lastUsedAt,
        key.expiresAt,
        key.revokedAt,
        key.replacedBy,
      ],
    );
    if (inserted.rowCount === 0) throw new StorageDuplicateError('api_key_exists', `an API key with id ${key.id} exists`);
    await inTransaction(tx);
  });
}

export async function findApiKeyRow(db: PostgresDatabase, id: string): Promise<ApiKeyRecord | null> {
  const [row] = await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return row ? toApiKey(row) : null;
}

export async function listApiKeyRows(db: PostgresDatabase, storeId: string): Promise<ApiKeyRecord[]> {
  return (await db.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE store_id = $1 ORDER BY created_at, id`, [storeId])).map(toApiKey);
}

const KEY_PATCH_COLUMNS: Record<keyof ApiKeyPatch, string> = {
  name: 'name',
  lastUsedAt: 'last_used_at',
  expiresAt: 'expires_at',
  revokedAt: 'revoked_at',
  replacedBy: 'replaced_by',
};

/** Sets the fields the patch defines; StorageNotFoundError for an unknown key. */
export async function updateApiKeyRow(db: PostgresDatabase, id: string, patch: ApiKeyPatch, inTransaction: InTransaction): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const [field, column] of Object.entries(KEY_PATCH_COLUMNS) as Array<[keyof ApiKeyPatch, string]>) {
    if (patch[field] === undefined) continue;
    values.push(patch[field]);
    sets.push(`${column} = $${values.length}`);
  }
  const sql = sets.length === 0 ? 'SELECT 1 FROM api_keys WHERE id = $1' : `UPDATE api_keys SET ${sets.join(', ')} WHERE id = $1`;
  const rows = await db.transaction(async (tx) => {
    const { rowCount } = await tx.query(sql, values);
    if (rowCount) await inTransaction(tx);
    return rowCount;
  });
  if (rows === 0) throw new StorageNotFoundError('api_key_not_found', `no API key with id ${id}`);
}

/** Last-used marks, coalesced: each only moves a key's time forward. */
export async function touchApiKeyRows(db: PostgresDatabase, touches: Array<[id: string, lastUsedAt: string]>): Promise<void> {
  if (touches.length === 0) return;
  await db.query(
    `UPDATE api_keys AS k SET last_used_at = t.at FROM unnest($1::text[], $2::text[]) AS t(id, at)
      WHERE k.id = t.id AND (k.last_used_at IS NULL OR k.last_used_at < t.at)`,
    [touches.map(([id]) => id), touches.map(([, at]) => at)],
  );
}
