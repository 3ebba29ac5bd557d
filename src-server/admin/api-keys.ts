/**
 * API keys of a Store: issue, list, rotate, revoke, and authenticate a presented credential.
 * Plain functions over Storage; the HTTP layer stays thin over them.
 */
import type { ApiKeyRecord, Storage, StoreRecord } from '../storage/storage';
import type { ApiKeyView, CreateApiKeyInput, CreatedApiKeyView, Scope } from './contract';
import {
  basicCredential,
  bearerToken,
  generateKeyId,
  generateSecret,
  hashSecret,
  secretMatches,
} from './credentials';

/** How long a rotated key keeps working unless the admin chooses otherwise. */
export const DEFAULT_ROTATION_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * last-used times are shown to the minute in the console; writing one per request would put a
 * journal record behind every statement, so a key's time is written at most this often.
 */
const LAST_USED_RESOLUTION_MS = 60_000;

export function keyState(key: ApiKeyRecord, now: Date): ApiKeyView['state'] {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
}

export function toApiKeyView(key: ApiKeyRecord, store: StoreRecord, now = new Date()): ApiKeyView {
  return {
    id: key.id,
    storeSlug: store.slug,
    name: key.name,
    scopes: key.scopes as Scope[],
    environment: key.environment,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    replacedBy: key.replacedBy,
    state: keyState(key, now),
  };
}

export async function createApiKey(
  storage: Storage,
  store: StoreRecord,
  input: CreateApiKeyInput,
  now = new Date(),
): Promise<CreatedApiKeyView> {
  const secret = generateSecret();
  const record: ApiKeyRecord = {
    id: generateKeyId(store.environment),
    storeId: store.id,
    name: input.name,
    secretHash: hashSecret(secret),
    scopes: input.scopes,
    environment: store.environment,
    createdAt: now.toISOString(),
    lastUsedAt: null,
    expiresAt: input.expiresAt === null ? null : new Date(input.expiresAt).toISOString(),
    revokedAt: null,
    replacedBy: null,
  };
  await storage.insertApiKey(record);
  return {
    ...toApiKeyView(record, store, now),
    secret,
    token: bearerToken(record.id, secret),
    basic: basicCredential(record.id, secret),
  };
}

/**
 * Issues a replacement with the same name and scopes; the old key keeps working until
 * `oldKeyExpiresAt` (default 7 days), so content can move over without downtime.
 */
export async function rotateApiKey(
  storage: Storage,
  store: StoreRecord,
  old: ApiKeyRecord,
  options: { oldKeyExpiresAt?: string; name?: string },
  now = new Date(),
): Promise<{ replacement: CreatedApiKeyView; previous: ApiKeyView }> {
  const replacement = await createApiKey(
    storage,
    store,
    { name: options.name ?? old.name, scopes: old.scopes as Scope[], expiresAt: null },
    now,
  );
  const requested = options.oldKeyExpiresAt
    ? Date.parse(options.oldKeyExpiresAt)
    : now.getTime() + DEFAULT_ROTATION_GRACE_MS;
  // Rotation never extends a key's life beyond the expiry it already had.
  const current = old.expiresAt === null ? Infinity : Date.parse(old.expiresAt);
  const expiresAt = new Date(Math.min(requested, current)).toISOString();
  await storage.updateApiKey(old.id, { expiresAt, replacedBy: replacement.id });
  const previous = { ...old, expiresAt, replacedBy: replacement.id };
  return { replacement, previous: toApiKeyView(previous, store, now) };
}

export async function revokeApiKey(storage: Storage, key: ApiKeyRecord, now = new Date()): Promise<ApiKeyRecord> {
  const revokedAt = key.revokedAt ?? now.toISOString();
  await storage.updateApiKey(key.id, { revokedAt });
  return { ...key, revokedAt };
}

export type KeyCheck =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; reason: 'unknown_key' | 'wrong_secret' }
  | { ok: false; reason: 'revoked' | 'expired'; key: ApiKeyRecord };

/**
 * Checks a presented key id and secret, and says which part failed so the person setting up a
 * course can fix the right field. Key ids are public (every statement's `authority` carries
 * one), so telling an unknown id from a wrong secret reveals nothing; an unknown id still costs
 * one hash comparison all the same. A revoked or expired key is named only to whoever holds its
 * secret.
 */
export async function authenticateApiKey(
  storage: Storage,
  keyId: string,
  secret: string,
  now = new Date(),
): Promise<KeyCheck> {
  const key = keyId.length <= 100 ? await storage.findApiKey(keyId) : null;
  const matches = secretMatches(secret, key?.secretHash ?? hashSecret(''));
  if (!key) return { ok: false, reason: 'unknown_key' };
  if (!matches) return { ok: false, reason: 'wrong_secret' };
  const state = keyState(key, now);
  if (state !== 'active') return { ok: false, reason: state, key };
  if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= LAST_USED_RESOLUTION_MS) {
    await storage.updateApiKey(key.id, { lastUsedAt: now.toISOString() });
  }
  return { ok: true, key };
}

/**
 * xAPI scopes (xAPI 1.0.3 Part Three §4.2 "OAuth Scope"): which ones allow an operation.
 * `statements/read` here means reading the whole Store: `statements/read/mine` does not grant it
 * (see statementReadReach), nor reading Activities and Agents.
 */
export function hasScope(key: ApiKeyRecord, needed: 'statements/write' | 'statements/read' | 'state' | 'profile' | 'define'): boolean {
  const scopes = key.scopes;
  if (scopes.includes('all')) return true;
  if (needed === 'statements/read') return scopes.includes('statements/read') || scopes.includes('all/read');
  return scopes.includes(needed);
}

/**
 * How much of a Store's statements a key may read (xAPI 1.0.3 Part Three §4.2): 'all' with
 * statements/read, all/read or all; 'mine' with only statements/read/mine, "read access to
 * statements for which the authority is this client", i.e. the statements sent with this key;
 * null when it may read none.
 */
export function statementReadReach(key: ApiKeyRecord): 'all' | 'mine' | null {
  if (hasScope(key, 'statements/read')) return 'all';
  return key.scopes.includes('statements/read/mine') ? 'mine' : null;
}
