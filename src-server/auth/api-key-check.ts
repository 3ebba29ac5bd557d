/**
 * Checking the API key an xAPI request presents: is it known, is its secret right, is it still in
 * force, and what its scopes let it do. Used by the xAPI routes (http/) and the LRS operations
 * (lrs/); the admin API shows a key's state with the same rule (admin/api-keys.ts).
 */
import type { ApiKeyRecord, Storage } from '../storage/storage';
import { hashSecret, secretMatches } from './credentials';

/**
 * last-used times are shown to the minute in the console; writing one per request would put a
 * journal record behind every statement, so a key's time is written at most this often.
 */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Whether a key is in force; `revoked` wins over `expired`. */
export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(key: ApiKeyRecord, now: Date): KeyState {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
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
