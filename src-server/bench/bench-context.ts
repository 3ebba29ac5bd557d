/**
 * What the Test Bench works with: the storage, the LRS's clock and live events (its own statements
 * are recorded like any other), and the address the service names itself by. One per service.
 */
import { basicCredential, generateKeyId, generateSecret, hashSecret } from '../auth/credentials';
import { keyState } from '../auth/api-key-check';
import type { StatementWriteContext } from '../lrs/statement-writes';
import { recordStatements } from '../lrs/statement-writes';
import type { StoredClock } from '../lrs/stored-clock';
import type { ApiKeyRecord, Storage, StoreRecord } from '../storage/storage';

export interface BenchContext {
  storage: Storage;
  clock: StoredClock;
  /**
   * The service's own base URL (--public-url, else its listen address): the learner's account and
   * the authority of the LMS's statements name it. What a launch hands the browser (the course's
   * URLs, its endpoint) starts with the base the launch request came by instead (launches.ts).
   */
  identityUrl: () => string;
  events: StatementWriteContext['events'];
  log: (message: string) => void;
}

/** How long an attempt's key works: long enough for a course, short enough not to linger. */
const ATTEMPT_KEY_TTL_MS = 4 * 60 * 60 * 1000;
/** What a launched course may do: send statements, read its own, keep State and profiles. */
const ATTEMPT_SCOPES = ['statements/write', 'statements/read/mine', 'state', 'profile'];
/** The key the Test Bench records the LMS's own statements with (their authority names it). */
const LMS_KEY_NAME = 'Test Bench LMS';

/** A key for one attempt, scoped to the Store and expiring: its Basic credential is handed out once. */
export async function issueAttemptKey(ctx: BenchContext, store: StoreRecord, name: string, now: Date): Promise<{ key: ApiKeyRecord; basic: string }> {
  const secret = generateSecret();
  const key: ApiKeyRecord = {
    id: generateKeyId(store.environment),
    storeId: store.id,
    name,
    secretHash: hashSecret(secret),
    scopes: ATTEMPT_SCOPES,
    environment: store.environment,
    createdAt: now.toISOString(),
    lastUsedAt: null,
    expiresAt: new Date(now.getTime() + ATTEMPT_KEY_TTL_MS).toISOString(),
    revokedAt: null,
    replacedBy: null,
  };
  await ctx.storage.insertApiKey(key);
  return { key, basic: basicCredential(key.id, secret) };
}

/**
 * The Store's LMS key, made on first use. Its secret is never kept or shown: nothing outside the
 * service writes with it.
 */
async function lmsKey(ctx: BenchContext, store: StoreRecord, now: Date): Promise<ApiKeyRecord> {
  const existing = (await ctx.storage.listApiKeys(store.id)).find((key) => key.name === LMS_KEY_NAME && keyState(key, now) === 'active');
  if (existing) return existing;
  const key: ApiKeyRecord = {
    id: generateKeyId(store.environment),
    storeId: store.id,
    name: LMS_KEY_NAME,
    secretHash: hashSecret(generateSecret()),
    scopes: ['statements/write', 'state'],
    environment: store.environment,
    createdAt: now.toISOString(),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
  };
  await ctx.storage.insertApiKey(key);
  return key;
}

/** Records statements of the LMS through the LRS, validated, indexed and announced like any other. */
export async function recordLmsStatements(ctx: BenchContext, store: StoreRecord, statements: Array<Record<string, unknown>>): Promise<void> {
  if (statements.length === 0) return;
  const key = await lmsKey(ctx, store, new Date());
  const outcome = await recordStatements(
    { storage: ctx.storage, store, key, version: '1.0.3', clock: ctx.clock, publicUrl: ctx.identityUrl(), events: ctx.events },
    statements,
  );
  if (!outcome.ok) throw new Error(`the Test Bench could not record its own statements: ${outcome.failure.message}`);
}
