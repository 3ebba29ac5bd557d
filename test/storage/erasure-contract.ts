/**
 * Forgetting a learner and a Store's retention, the same on every backend: a learner seeded in
 * every place an agent can be (actor, Agent object, Group member, instructor, team, sub-statement,
 * 2.0.0 context agents, authority, a second IFI, the mbox's SHA-1, a received copy, State and Agent
 * Profile documents, rejected and refused entries, an attachment), another learner beside her. Run
 * by sqljs-erasure.test.ts and postgres-erasure.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { ifiHash } from '../../src-server/storage/erasure';
import type { RefusalRow, StatementRow, Storage, StoreRecord } from '../../src-server/storage/storage';
import { extractIndexTerms } from '../../src-server/xapi/index-terms';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { at, makeRejection, makeStore } from './rows';

const ADA_MBOX = 'mailto:ada@example.com';
const ADA = { mbox: ADA_MBOX, name: 'Ada Lovelace' };
const ADA_ACCOUNT = { account: { homePage: 'https://lms.example.com', name: 'ada-l' } };
const ADA_SHA1 = { mbox_sha1sum: createHash('sha1').update(ADA_MBOX).digest('hex') };
const BOB = { mbox: 'mailto:bob@example.com', name: 'Bob Brown' };
/** Text that would name her (not a bare "ada": hex ids and hashes may hold it). */
const NAMES_ADA = new RegExp(`ada@example|ada-l|lovelace|${ADA_SHA1.mbox_sha1sum}`, 'i');
export const ADA_KEYS = ['mbox:mailto:ada@example.com', 'account:https://lms.example.com|ada-l'];
const BOB_KEY = 'mbox:mailto:bob@example.com';
const VERB = { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } };
const COURSE = { objectType: 'Activity', id: 'http://example.com/course/1' };
const AUTHORITY = { objectType: 'Agent', account: { homePage: 'https://lore.example', name: 'lore_test_key' } };

/** A stored statement as the LRS would hand it to storage: its index terms from its text. */
export function statementRow(statement: Record<string, unknown>, seconds: number, extra: Partial<StatementRow> = {}): StatementRow {
  const id = randomUUID();
  const stored = at(seconds);
  const full = { id, authority: AUTHORITY, verb: VERB, object: COURSE, version: '1.0.3', ...statement, stored, timestamp: stored } as Record<string, unknown>;
  const index = extractIndexTerms(full as unknown as Statement);
  return {
    statementId: id,
    statement: full,
    signature: id,
    stored,
    keyId: 'lore_test_key',
    verbId: index.verbId,
    registration: index.registration,
    voidsStatementId: index.voidsStatementId,
    targetStatementId: index.targetStatementId,
    terms: index.terms,
    ...extra,
  };
}

const attachment = (text: string) => {
  const content = new TextEncoder().encode(text);
  return { sha2: createHash('sha256').update(content).digest('hex'), contentType: 'text/plain', content };
};

function refusal(path: string, seconds = 0): RefusalRow {
  return { at: at(seconds), lastAt: at(seconds), count: 1, method: 'GET', path, status: 401, code: 'unauthorized', reason: 'no credentials', keyId: null, client: '127.0.0.1', userAgent: null };
}

interface Seeded {
  store: StoreRecord;
  adaIds: string[];
  bobIds: string[];
  /** Bob's statement whose object is a StatementRef to Ada's first one. */
  bobRefId: string;
  onlyAda: string;
  shared: string;
}

/** The learner in every place, and Bob. */
export async function seedLearners(storage: Storage, store: StoreRecord = makeStore()): Promise<Seeded> {
  await storage.insertStore(store);
  const only = attachment('only Ada');
  const shared = attachment('shared');
  const withAttachments = (list: Array<ReturnType<typeof attachment>>) => ({
    attachments: list.map((a) => ({ usageType: 'http://example.com/usage', display: { en: 'a' }, contentType: a.contentType, length: a.content.length, sha2: a.sha2 })),
  });
  const ada = [
    statementRow({ actor: ADA, ...withAttachments([only, shared]) }, 1, { attachments: [only, shared] }),
    statementRow({ actor: BOB, object: { objectType: 'Agent', ...ADA } }, 2),
    statementRow({ actor: { objectType: 'Group', name: 'Team', member: [BOB, ADA] } }, 3),
    statementRow({ actor: BOB, context: { instructor: ADA } }, 4),
    statementRow({ actor: BOB, context: { team: { objectType: 'Group', member: [ADA] } } }, 5),
    statementRow({ actor: BOB, object: { objectType: 'SubStatement', actor: ADA, verb: VERB, object: COURSE } }, 6),
    statementRow({ actor: BOB, version: '2.0.0', context: { contextAgents: [{ objectType: 'contextAgent', agent: ADA }] } }, 7),
    statementRow({ actor: BOB, authority: { objectType: 'Agent', ...ADA } }, 8),
    statementRow({ actor: { ...ADA_ACCOUNT, name: 'Ada L' } }, 9),
    statementRow({ actor: ADA_SHA1 }, 10),
  ];
  const bob = [
    statementRow({ actor: BOB, ...withAttachments([shared]) }, 11, { attachments: [shared] }),
    // The copy as received names Ada as a client-sent authority the LRS replaced.
    statementRow({ actor: BOB }, 12, { received: { actor: BOB, verb: VERB, object: COURSE, authority: { mbox: ADA_MBOX } }, lrsAdded: ['id', 'stored'] }),
  ];
  const bobRef = statementRow({ actor: BOB, object: { objectType: 'StatementRef', id: ada[0]!.statementId } }, 13);
  for (const row of [...ada, ...bob, bobRef]) expect(await storage.insertStatements(store.id, [row])).toMatchObject({ ok: true });

  const doc = (agent: string, kind: 'state' | 'agentProfile', id: string) =>
    storage.upsertDocument(
      store.id,
      { kind, activityId: kind === 'state' ? COURSE.id : null, agent, registration: null, id },
      { contentType: 'application/json', content: new TextEncoder().encode('{}'), etag: id, updated: at(1) },
      null,
    );
  await doc(ADA_KEYS[0]!, 'state', 'bookmark');
  await doc(ADA_KEYS[1]!, 'state', 'progress');
  await doc(ADA_KEYS[0]!, 'agentProfile', 'prefs');
  await doc(BOB_KEY, 'state', 'bookmark');
  await storage.insertRejections(store.id, [
    makeRejection({ agent: ADA_KEYS[0]! }),
    { ...makeRejection({ agent: null }), payload: { actor: BOB, context: { instructor: { mbox: 'ada@example.com' } } } },
    makeRejection({ agent: BOB_KEY }),
  ]);
  await storage.insertRefusals([
    { ...refusal(`/xapi/statements?agent=${encodeURIComponent(JSON.stringify({ mbox: ADA_MBOX }))}`), storeId: store.id },
    { ...refusal(`/xapi/statements?agent=${encodeURIComponent(JSON.stringify({ mbox: BOB.mbox }))}`), storeId: store.id },
  ]);
  return {
    store,
    adaIds: ada.map((r) => r.statementId),
    bobIds: bob.map((r) => r.statementId),
    bobRefId: bobRef.statementId,
    onlyAda: only.sha2,
    shared: shared.sha2,
  };
}

const EXPECTED = {
  statements: 10,
  attachments: 1,
  rejections: 2,
  refusals: 1,
  stateDocuments: 2,
  agentProfileDocuments: 1,
  receivedCopies: 1,
  testBenchRecords: 0,
};

async function idsFor(storage: Storage, storeId: string, key: string): Promise<string[]> {
  const page = await storage.queryStatements(storeId, { agent: key, relatedAgents: true, limit: 100 });
  return page.statements.map((s) => s.statementId);
}

/** What every backend does; `reopen` gives the same data again (sql.js: from its data directory). */
export function erasureContract(open: () => Promise<Storage>, reopen?: (storage: Storage) => Promise<Storage>): void {
  it('counts in a dry run exactly what the erasure then removes, everywhere the learner is, and leaves the other learner', async () => {
    const storage = await open();
    const seeded = await seedLearners(storage);
    const { store } = seeded;
    const request = { keys: ADA_KEYS, at: at(100) };
    const dry = await storage.eraseAgents(store.id, { ...request, dryRun: true });
    expect(dry).toEqual({ dryRun: true, counts: EXPECTED, erasure: null });
    // A dry run changes nothing.
    expect((await idsFor(storage, store.id, ADA_KEYS[0]!)).length).toBeGreaterThan(0);
    expect(await storage.listErasures(store.id)).toEqual([]);

    const done = await storage.eraseAgents(store.id, { ...request, dryRun: false });
    expect(done.counts).toEqual(dry.counts);
    expect(done.erasure).toMatchObject({ storeId: store.id, at: request.at, counts: EXPECTED });
    await expectForgotten(storage, seeded);
    if (reopen) await expectForgotten(await reopen(storage), seeded);
  });

  it('keeps the ledger with salted hashes of the IFIs, never the IFIs', async () => {
    const storage = await open();
    const { store } = await seedLearners(storage);
    const { erasure } = await storage.eraseAgents(store.id, { keys: ADA_KEYS, at: at(100), dryRun: false });
    const [entry] = await storage.listErasures(store.id);
    expect(entry).toEqual(erasure);
    const text = JSON.stringify(await storage.listErasures());
    expect(text).not.toMatch(NAMES_ADA);
    expect(entry!.ifiHashes).toContain(ifiHash(entry!.salt, ADA_KEYS[0]!));
    expect(entry!.ifiHashes).toContain(ifiHash(entry!.salt, ADA_KEYS[1]!));
    // Another erasure draws another salt: the same person is not linkable across entries.
    const again = await storage.eraseAgents(store.id, { keys: ADA_KEYS, at: at(200), dryRun: false });
    expect(again.counts.statements).toBe(0);
    expect(again.erasure!.salt).not.toBe(entry!.salt);
    expect((await storage.listErasures(store.id)).length).toBe(2);
  });

  it('applies a ledger entry again to data from before it (a restore), by its hashes, once', async () => {
    const before = await open();
    const after = await open();
    const store = makeStore();
    await seedLearners(after, store);
    const seeded = await seedLearners(before, store);
    const { erasure } = await after.eraseAgents(store.id, { keys: ADA_KEYS, at: at(100), dryRun: false });
    expect(await before.reapplyErasure(erasure!)).toEqual(EXPECTED);
    await expectForgotten(before, seeded);
    expect(await before.listErasures(store.id)).toEqual([erasure]);
    expect(await before.reapplyErasure(erasure!)).toBeNull();
    expect(await before.reapplyErasure({ ...erasure!, id: 'of-a-store-not-here', storeId: 'gone' })).toBeNull();
  });

  it('removes old statements, rejections and refusals in steps, the young ones and other Stores untouched', async () => {
    const storage = await open();
    const store = makeStore();
    const other = makeStore();
    await storage.insertStore(store);
    await storage.insertStore(other);
    const DAY = 86_400;
    const old = Array.from({ length: 5 }, (_, i) => statementRow({ actor: BOB }, i));
    const young = Array.from({ length: 3 }, (_, i) => statementRow({ actor: BOB }, 10 * DAY + i));
    await storage.insertStatements(store.id, [...old, ...young]);
    await storage.insertStatements(other.id, [statementRow({ actor: BOB }, 0)]);
    await storage.insertRejections(store.id, [makeRejection({ receivedAt: 0 }), makeRejection({ receivedAt: 10 * DAY })]);
    await storage.insertRefusals([{ ...refusal('/old', 0), storeId: store.id }, { ...refusal('/young', 10 * DAY), storeId: store.id }]);
    const cutoff = Date.parse(at(5 * DAY));
    const step = await storage.retentionStep(store.id, { statementsBeforeMs: cutoff, rejectionsBeforeMs: cutoff, refusalsBeforeMs: cutoff });
    expect(step).toEqual({ statements: 5, rejections: 1, refusals: 1 });
    expect(await storage.retentionStep(store.id, { statementsBeforeMs: cutoff, rejectionsBeforeMs: cutoff, refusalsBeforeMs: cutoff })).toEqual({ statements: 0, rejections: 0, refusals: 0 });
    const left = await storage.queryStatements(store.id, { limit: 100, ascending: true });
    expect(left.statements.map((s) => s.statementId)).toEqual(young.map((r) => r.statementId));
    expect((await storage.queryStatements(other.id, { limit: 100 })).statements).toHaveLength(1);
    expect((await storage.searchExplorer(store.id, { status: 'rejected', limit: 10 })).records).toHaveLength(1);
    expect((await storage.listRefusals({ storeId: store.id, limit: 10 })).refusals.map((r) => r.path)).toEqual(['/young']);
    // Null cutoffs keep everything.
    expect(await storage.retentionStep(store.id, { statementsBeforeMs: null, rejectionsBeforeMs: null, refusalsBeforeMs: null })).toEqual({ statements: 0, rejections: 0, refusals: 0 });
  });
}

async function expectForgotten(storage: Storage, seeded: Seeded): Promise<void> {
  const { store } = seeded;
  const adaKeys = [...ADA_KEYS, `mbox_sha1sum:${ADA_SHA1.mbox_sha1sum}`];
  for (const key of adaKeys) expect(await idsFor(storage, store.id, key)).toEqual([]);
  for (const id of seeded.adaIds) expect(await storage.findStatement(store.id, id)).toBeNull();
  // Bob's own statements stay, the one referencing an erased statement too, and stay readable.
  for (const id of [...seeded.bobIds, seeded.bobRefId]) expect(await storage.findStatement(store.id, id)).not.toBeNull();
  expect(new Set(await idsFor(storage, store.id, BOB_KEY))).toEqual(new Set([...seeded.bobIds, seeded.bobRefId]));
  expect((await storage.findAttachments(store.id, [seeded.onlyAda, seeded.shared])).map((a) => a.sha2)).toEqual([seeded.shared]);
  // The copy as received no longer names her.
  const explorer = await storage.searchExplorer(store.id, { limit: 100 });
  expect(JSON.stringify(explorer.records)).not.toMatch(NAMES_ADA);
  expect(explorer.records.filter((r) => r.status === 'rejected')).toHaveLength(1);
  expect(await storage.lookupNames(store.id, { kind: 'agent', words: ['ada'], limit: 10 })).toEqual([]);
  expect(await storage.lookupNames(store.id, { kind: 'agent', words: ['lovelace'], limit: 10 })).toEqual([]);
  expect(await storage.matchNames(store.id, { kind: 'agent', words: ['ada'], limit: 10 })).toEqual([]);
  expect((await storage.lookupNames(store.id, { kind: 'agent', words: ['bob'], limit: 10 })).map((n) => n.value)).toEqual([BOB_KEY]);
  for (const [kind, agent] of [["state", ADA_KEYS[0]!], ["state", ADA_KEYS[1]!], ["agentProfile", ADA_KEYS[0]!]] as const) {
    expect(await storage.listDocumentIds(store.id, { kind, activityId: kind === 'state' ? COURSE.id : null, agent })).toEqual([]);
  }
  expect(await storage.listDocumentIds(store.id, { kind: 'state', activityId: COURSE.id, agent: BOB_KEY })).toEqual(['bookmark']);
  const refusals = (await storage.listRefusals({ storeId: store.id, limit: 10 })).refusals;
  expect(refusals).toHaveLength(1);
  expect(refusals[0]!.path).toContain('bob');
}
