/**
 * API keys in the embedded database: the checks and journal operations of their writes, applying
 * those, and the reads. The per-request "key used" mark (a touch) is applied at once and journaled
 * coalesced by the durable database (durable-database.ts, `touchApiKey`).
 */
import { StorageDuplicateError, StorageNotFoundError } from '../errors';
import type { ApiKeyPatch, ApiKeyRecord } from '../storage';
import type { ApplyState } from './apply-state';
import { applyPatch, definedFields } from './patches';
import type { PatchColumns } from './patches';
import type { Row, Sql } from './sql';
import { requireStoreNum } from './stores';

export type ApiKeyOp =
  | { t: 'insertApiKey'; key: ApiKeyRecord }
  | { t: 'updateApiKey'; id: string; patch: ApiKeyPatch }
  /** Coalesced last-used times: each only ever moves a key's time forward. */
  | { t: 'touchApiKeys'; touches: Array<[id: string, lastUsedAt: string]> };

const SELECT_COLUMNS =
  'id, store_id, name, secret_hash, scopes, environment, created_at, last_used_at, expires_at, revoked_at, replaced_by';
const PATCH_COLUMNS: PatchColumns<ApiKeyPatch> = {
  name: 'name',
  lastUsedAt: 'last_used_at',
  expiresAt: 'expires_at',
  revokedAt: 'revoked_at',
  replacedBy: 'replaced_by',
};

/** Touch only moves forward, so touches commute with each other and with their replay. */
const TOUCH_SQL = 'UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?2)';

function applyTouch(sql: Sql, id: string, lastUsedAt: string): void {
  sql.run(TOUCH_SQL, [id, lastUsedAt]);
}

export function insertApiKeyOp(state: ApplyState, key: ApiKeyRecord): ApiKeyOp {
  requireStoreNum(state, key.storeId);
  if (state.sql.first('SELECT 1 FROM api_keys WHERE id = ?', [key.id])) {
    throw new StorageDuplicateError('api_key_exists', `an API key with id ${key.id} exists`);
  }
  return { t: 'insertApiKey', key: pickApiKey(key) };
}

/**
 * What an update does: a `touch` when it sets only a (non-null) `lastUsedAt` — the per-request
 * "key used" mark — otherwise the fields it sets (possibly none).
 */
export function apiKeyUpdate(patch: ApiKeyPatch): { touch: string } | { patch: ApiKeyPatch } {
  const defined = definedFields(patch, PATCH_COLUMNS);
  const keys = Object.keys(defined);
  return keys.length === 1 && typeof defined.lastUsedAt === 'string' ? { touch: defined.lastUsedAt } : { patch: defined };
}

export function assertApiKey(sql: Sql, id: string): void {
  if (!sql.first('SELECT 1 FROM api_keys WHERE id = ?', [id])) {
    throw new StorageNotFoundError('api_key_not_found', `no API key with id ${id}`);
  }
}

/** Applies an API-key operation. The caller wraps it in a transaction. */
export function applyApiKeyOp(sql: Sql, op: ApiKeyOp): void {
  switch (op.t) {
    case 'insertApiKey': {
      const k = op.key;
      sql.run(
        `INSERT INTO api_keys (id, store_id, name, secret_hash, scopes, environment, created_at, last_used_at,
           expires_at, revoked_at, replaced_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          k.id,
          k.storeId,
          k.name,
          k.secretHash,
          JSON.stringify(k.scopes),
          k.environment,
          k.createdAt,
          k.lastUsedAt,
          k.expiresAt,
          k.revokedAt,
          k.replacedBy,
        ],
      );
      return;
    }
    case 'updateApiKey':
      applyPatch(sql, 'api_keys', PATCH_COLUMNS, op.id, op.patch);
      return;
    case 'touchApiKeys':
      for (const [id, lastUsedAt] of op.touches) applyTouch(sql, id, lastUsedAt);
      return;
  }
}

export function findApiKeyRow(sql: Sql, id: string): ApiKeyRecord | null {
  const row = sql.first(`SELECT ${SELECT_COLUMNS} FROM api_keys WHERE id = ?`, [id]);
  return row ? toApiKey(row) : null;
}

export function listApiKeyRows(sql: Sql, storeId: string): ApiKeyRecord[] {
  return sql.all(`SELECT ${SELECT_COLUMNS} FROM api_keys WHERE store_id = ? ORDER BY created_at, id`, [storeId]).map(toApiKey);
}

/** Copies exactly the interface's fields: nothing else a caller attached reaches the journal. */
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
