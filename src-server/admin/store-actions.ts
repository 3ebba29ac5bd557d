/**
 * What the Stores screen shows and does beyond create/rename/delete: each Store's counts and last
 * activity, emptying a Store, and sending it a test statement. Plain functions over Storage.
 */
import type { ApiKeyRecord, Storage, StoreRecord } from '../storage/storage';
import { recordStatements, type StatementWriteContext } from '../lrs/statement-writes';
import type { StoredClock } from '../lrs/stored-clock';
import type { Outcome } from '../lrs/failure';
import type { StoreSummaryView } from './contract';
import { toStoreView } from './stores';

export async function storeSummary(storage: Storage, store: StoreRecord, publicUrl: string): Promise<StoreSummaryView> {
  const [stats, newest] = await Promise.all([storage.stats(store.id), storage.searchExplorer(store.id, { limit: 1 })]);
  return {
    ...toStoreView(store, publicUrl),
    statementCount: stats.statements,
    rejectedCount: stats.rejections,
    // The newest record of any status: the Explorer's first row.
    lastActivityAt: newest.records[0]?.receivedAt ?? null,
  };
}

/**
 * A test Store is emptied at once; a live Store holds production data, so its slug must be typed
 * back (`confirmation`), as for deleting it.
 */
export async function emptyStore(
  storage: Storage,
  store: StoreRecord,
  confirmation: string | undefined,
): Promise<{ ok: true } | { ok: false; code: 'confirmation_required' }> {
  if (store.environment === 'live' && confirmation !== store.slug) return { ok: false, code: 'confirmation_required' };
  await storage.emptyStore(store.id);
  return { ok: true };
}

/**
 * The key id recorded on statements the console sends itself. It is not an API key: no key can
 * have this id (issued ids start with `lore_test_` or `lore_live_`), it authenticates nothing and
 * it appears only as the statements' `keyId` and in their authority (account name "console").
 */
export const CONSOLE_KEY_ID = 'console';

/** The stand-in key the console's test statements are recorded with; see CONSOLE_KEY_ID. */
function consoleKey(store: StoreRecord): ApiKeyRecord {
  return {
    id: CONSOLE_KEY_ID,
    storeId: store.id,
    name: 'Lore console',
    secretHash: '',
    // "define": the test activity's name is recorded as an Activity definition.
    scopes: ['statements/write', 'define'],
    environment: store.environment,
    createdAt: store.createdAt,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
  };
}

/** The Store's own test activity: an IRI under its endpoint, so each Store has its own. */
function testActivityId(store: StoreRecord, publicUrl: string): string {
  return `${toStoreView(store, publicUrl).endpoint}activities/lore-console-test`;
}

/** The sample statement "Lore console experienced 'Lore test activity'". */
function testStatement(store: StoreRecord, publicUrl: string): Record<string, unknown> {
  return {
    actor: {
      objectType: 'Agent',
      name: 'Lore console',
      account: { homePage: publicUrl.replace(/\/$/, '') || 'http://localhost', name: 'lore-console-test-learner' },
    },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: {
      objectType: 'Activity',
      id: testActivityId(store, publicUrl),
      definition: {
        name: { 'en-US': `Lore test activity (${store.name})` },
        description: { 'en-US': 'A sample statement sent from the Lore console to check that the Store records statements.' },
        type: 'http://adlnet.gov/expapi/activities/media',
      },
    },
  };
}

/** Records the sample statement through the same pipeline as content's statements. */
export async function sendTestStatement(
  ctx: { storage: Storage; store: StoreRecord; clock: StoredClock; publicUrl: string; events: StatementWriteContext['events'] },
): Promise<Outcome<string>> {
  const outcome = await recordStatements(
    { storage: ctx.storage, store: ctx.store, key: consoleKey(ctx.store), version: '1.0.3', clock: ctx.clock, publicUrl: ctx.publicUrl, events: ctx.events },
    testStatement(ctx.store, ctx.publicUrl),
  );
  return outcome.ok ? { ok: true, value: outcome.value[0]! } : outcome;
}
