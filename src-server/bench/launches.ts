/**
 * Launching a package's unit for a learner against a test Store, as an LMS would: a Tin Can
 * launch URL with its own short-lived key, or a cmi5 launch (LaunchData, `launched`, a one-time
 * fetch URL that hands out the key). docs/test-bench-rules.md says what each side expects.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { documentEtag } from '../xapi/documents';
import { agentKey } from '../xapi/agent-key';
import type { LaunchRecord, PackageRecord, StoreRecord } from '../storage/storage';
import type { BenchContext } from './bench-context';
import { issueAttemptKey, recordLmsStatements } from './bench-context';
import { abandonedStatement, CMI5, courseAus, launchData, launchedStatement, lmsActivityIds } from './cmi5-lms';
import type { Cmi5Session, LaunchMode } from './cmi5-lms';
import { packageDescription, packageContentUrl } from './packages';
import type { Cmi5Description, TincanDescription } from './package-description';

interface Learner {
  name: string;
  mbox: string;
}

export interface LaunchRequest {
  learner: Learner;
  /** cmi5: the AU's publisher id; default the first AU. Tin Can: ignored (one course). */
  unit?: string;
  launchMode?: LaunchMode;
}

/** Why a launch, a fetch or a waiver is refused: a status below 500 and words for the person. */
export class LaunchRefusal extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'LaunchRefusal';
  }
}

/**
 * `baseUrl`: the base the launch request came by (http/request-origin.ts). The browser that asked
 * opens the course, so every URL it is handed (the course's files, endpoint, fetch and return
 * URLs) starts with it; the learner's account names the service by `ctx.identityUrl`, the same
 * whichever name was used, so a learner's next launch continues the same registration.
 */
export async function launchUnit(
  ctx: BenchContext,
  store: StoreRecord,
  pkg: PackageRecord,
  request: LaunchRequest,
  baseUrl: string,
  now = new Date(),
): Promise<{ url: string; registration: string; launchId: string }> {
  if (store.environment !== 'test') {
    throw new LaunchRefusal(409, 'live_store', `Store "${store.slug}" is a live Store: only test Stores launch packages, so that trial attempts never mix with learners' data.`);
  }
  const description = packageDescription(pkg);
  return description.kind === 'tincan'
    ? launchTincan(ctx, store, pkg, description, request.learner, baseUrl, now)
    : launchCmi5(ctx, store, pkg, description, request, baseUrl, now);
}

function endpointOf(baseUrl: string, store: StoreRecord): string {
  return `${baseUrl}/${store.slug}/xAPI/`;
}

/** Query parameters appended to a launch file that may carry its own. Every value encoded (Adapt drops raw `=`). */
function withParams(url: string, params: Record<string, string>): string {
  const query = Object.entries(params)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

async function launchTincan(
  ctx: BenchContext,
  store: StoreRecord,
  pkg: PackageRecord,
  description: TincanDescription,
  learner: Learner,
  baseUrl: string,
  now: Date,
): Promise<{ url: string; registration: string; launchId: string }> {
  const registration = randomUUID();
  const actor = { objectType: 'Agent', name: learner.name, mbox: learner.mbox };
  const { key, basic } = await issueAttemptKey(ctx, store, `Test Bench: ${learner.name} (${pkg.title})`, now);
  const launch: LaunchRecord = {
    id: randomUUID(),
    storeId: store.id,
    packageId: pkg.id,
    unitId: description.activityId,
    registration,
    actor,
    sessionId: null,
    launchMode: null,
    fetchSecretHash: null,
    fetchedAt: null,
    keyId: key.id,
    createdAt: now.toISOString(),
  };
  await ctx.storage.insertLaunch(launch);
  const url = withParams(packageContentUrl(baseUrl, store, pkg, description.root + description.launch), {
    endpoint: endpointOf(baseUrl, store),
    auth: `Basic ${basic}`,
    actor: JSON.stringify(actor),
    registration,
    activity_id: description.activityId,
  });
  return { url, registration, launchId: launch.id };
}

async function launchCmi5(
  ctx: BenchContext,
  store: StoreRecord,
  pkg: PackageRecord,
  description: Cmi5Description,
  request: LaunchRequest,
  baseUrl: string,
  now: Date,
): Promise<{ url: string; registration: string; launchId: string }> {
  const aus = courseAus(description);
  const au = request.unit === undefined ? aus[0] : aus.find((candidate) => candidate.id === request.unit);
  if (!au) {
    throw new LaunchRefusal(400, 'unknown_unit', `The package "${pkg.title}" has no AU "${request.unit ?? ''}": pick one of ${aus.map((a) => `"${a.id}"`).join(', ')}.`);
  }
  const ids = lmsActivityIds(pkg.id, description);
  // cmi5 asks for an account actor; the learner's mailbox names the account, on this service.
  const actor = { objectType: 'Agent', name: request.learner.name, account: { homePage: ctx.identityUrl(), name: request.learner.mbox.replace(/^mailto:/i, '') } };
  // One registration per learner and course: a learner's next launch continues it.
  const earlier = (await ctx.storage.listLaunches(store.id, {})).filter(
    (launch) => launch.packageId === pkg.id && agentKey(launch.actor as never) === agentKey(actor as never),
  );
  const registration = earlier.at(-1)?.registration ?? randomUUID();
  const session: Cmi5Session = {
    actor,
    registration,
    sessionId: randomUUID(),
    launchMode: request.launchMode ?? 'Normal',
    au,
    auActivityId: ids.au.get(au.id)!,
  };
  await abandonOpenSessions(ctx, store, earlier.filter((launch) => launch.unitId === au.id), session, now);

  const auUrl = /^[a-z][a-z0-9+.-]*:/i.test(au.url) ? au.url : packageContentUrl(baseUrl, store, pkg, description.root + au.url);
  const returnUrl = `${baseUrl}/admin/`;
  await writeLaunchData(ctx, store, session, returnUrl);
  await seedLearnerPreferences(ctx, store, actor);
  await recordLmsStatements(ctx, store, [launchedStatement(session, auUrl, now)]);

  const fetchSecret = randomBytes(24).toString('base64url');
  const launch: LaunchRecord = {
    id: randomUUID(),
    storeId: store.id,
    packageId: pkg.id,
    unitId: au.id,
    registration,
    actor,
    sessionId: session.sessionId,
    launchMode: session.launchMode,
    fetchSecretHash: hashFetchSecret(fetchSecret),
    fetchedAt: null,
    keyId: null,
    createdAt: now.toISOString(),
  };
  await ctx.storage.insertLaunch(launch);
  const url = withParams(auUrl, {
    endpoint: endpointOf(baseUrl, store),
    fetch: `${baseUrl}/${store.slug}/bench/fetch/${launch.id}/${fetchSecret}`,
    actor: JSON.stringify(actor),
    registration,
    activityId: session.auActivityId,
  });
  return { url, registration, launchId: launch.id };
}

/**
 * `abandoned` for each earlier session of this AU and registration that never ended (no
 * terminated, no abandoned): a new launch means the learner left it (3.2).
 */
async function abandonOpenSessions(ctx: BenchContext, store: StoreRecord, earlier: LaunchRecord[], next: Cmi5Session, now: Date): Promise<void> {
  const sameRegistration = earlier.filter((launch) => launch.registration === next.registration && launch.sessionId !== null);
  if (sameRegistration.length === 0) return;
  const page = await ctx.storage.queryStatements(store.id, { registration: next.registration, ascending: true, limit: 10_000 });
  const bySession = new Map<string, Array<{ verb: unknown; stored: string }>>();
  for (const row of page.statements) {
    const context = row.statement['context'] as { extensions?: Record<string, unknown> } | undefined;
    const sessionId = context?.extensions?.[CMI5.sessionId];
    if (typeof sessionId !== 'string') continue;
    const list = bySession.get(sessionId) ?? [];
    list.push({ verb: (row.statement['verb'] as { id?: unknown } | undefined)?.id, stored: row.stored });
    bySession.set(sessionId, list);
  }
  const abandoned = sameRegistration.flatMap((launch) => {
    const statements = bySession.get(launch.sessionId!) ?? [];
    if (statements.some((s) => s.verb === CMI5.terminated || s.verb === CMI5.abandoned)) return [];
    const last = statements.at(-1)?.stored ?? launch.createdAt;
    return [abandonedStatement({ ...next, sessionId: launch.sessionId!, launchMode: (launch.launchMode as LaunchMode | null) ?? 'Normal' }, Date.parse(last) - Date.parse(launch.createdAt), now)];
  });
  await recordLmsStatements(ctx, store, abandoned);
  // An abandoned session's key ends with it: only the new session writes from now on.
  for (const launch of sameRegistration) {
    if (launch.keyId === null) continue;
    const key = await ctx.storage.findApiKey(launch.keyId);
    if (key && key.revokedAt === null) await ctx.storage.updateApiKey(key.id, { revokedAt: now.toISOString() });
  }
}

async function writeLaunchData(ctx: BenchContext, store: StoreRecord, session: Cmi5Session, returnUrl: string): Promise<void> {
  await putJsonDocument(ctx, store, {
    kind: 'state',
    activityId: session.auActivityId,
    agent: agentKey(session.actor as never),
    registration: session.registration,
    id: CMI5.launchDataStateId,
  }, launchData(session, returnUrl));
}

/** Seeded so the AU's read of it succeeds (3.5); kept if the learner already has one. */
async function seedLearnerPreferences(ctx: BenchContext, store: StoreRecord, actor: Record<string, unknown>): Promise<void> {
  const key = { kind: 'agentProfile' as const, activityId: null, agent: agentKey(actor as never), registration: null, id: CMI5.learnerPreferencesProfileId };
  if (await ctx.storage.findDocument(store.id, key)) return;
  await putJsonDocument(ctx, store, key, { languagePreference: 'en-US', audioPreference: 'on' });
}

async function putJsonDocument(
  ctx: BenchContext,
  store: StoreRecord,
  key: Parameters<BenchContext['storage']['findDocument']>[1],
  value: unknown,
): Promise<void> {
  const content = new Uint8Array(Buffer.from(JSON.stringify(value)));
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await ctx.storage.findDocument(store.id, key);
    const written = { contentType: 'application/json', content, etag: documentEtag(content), updated: ctx.clock.now().toISOString() };
    if (await ctx.storage.upsertDocument(store.id, key, written, current?.etag ?? null)) return;
  }
  throw new Error(`the Test Bench could not write the ${key.id} document: other writes kept changing it`);
}

function hashFetchSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The fetch URL's answer (3.3): always 200 JSON, the token the first time, an error object after. */
export type FetchAnswer = { 'auth-token': string } | { 'error-code': '1' | '2' | '3'; 'error-text': string };

export async function redeemFetch(ctx: BenchContext, store: StoreRecord, launchId: string, secret: string, now = new Date()): Promise<FetchAnswer> {
  const launch = await ctx.storage.findLaunch(store.id, launchId);
  const presented = Buffer.from(hashFetchSecret(secret), 'hex');
  const expected = launch?.fetchSecretHash ? Buffer.from(launch.fetchSecretHash, 'hex') : null;
  if (!launch || !expected || expected.length !== presented.length || !timingSafeEqual(expected, presented)) {
    return { 'error-code': '2', 'error-text': 'This fetch URL is not one the Test Bench handed out.' };
  }
  if (launch.fetchedAt !== null) {
    return { 'error-code': '1', 'error-text': 'This fetch URL was used already: each launch hands out its token once. Launch again from the Test Bench.' };
  }
  if (now.getTime() - Date.parse(launch.createdAt) > 60 * 60 * 1000) {
    return { 'error-code': '1', 'error-text': 'This launch expired (an hour after it was made): launch again from the Test Bench.' };
  }
  const learnerName = typeof launch.actor['name'] === 'string' ? launch.actor['name'] : 'learner';
  const { key, basic } = await issueAttemptKey(ctx, store, `Test Bench: ${learnerName} (cmi5 session)`, now);
  if (!(await ctx.storage.redeemLaunchFetch(store.id, launch.id, now.toISOString(), key.id))) {
    await ctx.storage.updateApiKey(key.id, { revokedAt: now.toISOString() });
    return { 'error-code': '1', 'error-text': 'This fetch URL was used already: each launch hands out its token once. Launch again from the Test Bench.' };
  }
  return { 'auth-token': basic };
}
