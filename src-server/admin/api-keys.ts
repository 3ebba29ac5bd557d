/**
 * API keys of a Store, as the admin API manages them: issue, list, rotate, revoke. Checking a
 * presented key is auth/api-key-check.ts's. Plain functions over Storage; the HTTP layer stays
 * thin over them.
 */
import { keyState } from '../auth/api-key-check';
import { basicCredential, bearerToken, generateKeyId, generateSecret, hashSecret } from '../auth/credentials';
import type { ApiKeyRecord, Storage, StoreRecord } from '../storage/storage';
import type { ApiKeyView, CreateApiKeyInput, CreatedApiKeyView, Scope } from './contract';

/** How long a rotated key keeps working unless the admin chooses otherwise. */
const DEFAULT_ROTATION_GRACE_MS = 7 * 24 * 60 * 60 * 1000;



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
