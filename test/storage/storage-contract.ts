/**
 * The behaviour every Storage implementation must have. An implementation's test file calls
 * describeStorageContract with a factory; the same sentences then hold for sql.js today and for
 * PostgreSQL later.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatementRow, Storage, StatementQuery, StoreRecord } from '../../src-server/storage/storage';
import { statementSignature } from '../../src-server/xapi/statement-signature';
import { statementAsReceived } from '../../src-server/xapi/received-statement';
import { describeActivitiesContract } from './activities-contract';
import { describeBenchContract } from './bench-contract';
import { describeConsoleContract } from './console-contract';
import { describeForwarderContract } from './forwarder-contract';
import { describeAuditContract } from './audit-contract';
import { describeDocumentContract } from './document-contract';
import { describeExplorerNamesContract } from './explorer-names-contract';
import { describeStatementTargetsContract } from './statement-targets-contract';
import { ALICE, ATTEMPTED, BOB, COMPLETED, COURSE, MODULE, at, makeApiKey, makeRejection, makeStatement, makeStore } from './rows';

export interface ContractSubject {
  storage: Storage;
  /** Closes the current instance and opens the same data again. */
  reopen: () => Promise<Storage>;
  /** Closes whatever is open and removes the data. */
  cleanup: () => Promise<void>;
  /**
   * Holds every write short of durable (its fsync, its commit) until the returned function is
   * called: what a read may see of a write not yet acknowledged.
   */
  holdDurability: () => () => void;
}

/** What the parts of the contract (documents, targets, console, Activities) run against: a Store in a fresh storage. */
export interface ContractContext {
  storage: () => Storage;
  store: () => StoreRecord;
  /** Closes the storage and opens the same data again (after a crash, in some variants). */
  reopen: () => Promise<void>;
  /** Holds every write short of durable until the returned function is called (ContractSubject). */
  holdDurability: () => () => void;
}

const TEACHER = 'mbox:mailto:teacher@example.com';
const OTHER_COURSE = 'http://example.com/course/9';

export function describeStorageContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`Storage contract: ${name}`, () => {
    let subject: ContractSubject;
    let storage: Storage;
    let store: StoreRecord;

    beforeEach(async () => {
      subject = await open();
      storage = subject.storage;
      store = makeStore();
      await storage.insertStore(store);
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    async function reopen(): Promise<void> {
      storage = await subject.reopen();
    }

    const ctx: ContractContext = { storage: () => storage, store: () => store, reopen, holdDurability: () => subject.holdDurability() };
    describeDocumentContract(ctx);
    describeStatementTargetsContract(ctx);
    describeConsoleContract(ctx);
    describeActivitiesContract(ctx);
    describeBenchContract(ctx);
    describeExplorerNamesContract(ctx);
    describeForwarderContract(ctx);
    describeAuditContract(ctx);

    async function insert(...specs: Parameters<typeof makeStatement>[0][]): Promise<string[]> {
      const rows = specs.map((spec) => makeStatement(spec));
      const result = await storage.insertStatements(store.id, rows);
      if (!result.ok) throw new Error('unexpected conflict');
      return result.inserted;
    }

    async function ids(query: Partial<StatementQuery>): Promise<string[]> {
      const page = await storage.queryStatements(store.id, { limit: 100, ...query });
      return page.statements.map((s) => s.statementId);
    }

    describe('reads show only durable writes', () => {
      it('shows no statement or rejection before its write is durable, and each one once it is acknowledged', async () => {
        const [earlier] = await insert({ actor: ALICE });
        const release = subject.holdDurability();
        const row = makeStatement({ actor: ALICE });
        const rejection = makeRejection();
        let acknowledged = false;
        const writes = Promise.all([storage.insertStatements(store.id, [row]), storage.insertRejections(store.id, [rejection])]).then(() => (acknowledged = true));
        // Every chance for the writes to get as far as they can without the disk.
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        expect(acknowledged).toBe(false);
        expect(await storage.findStatement(store.id, row.statementId)).toBeNull();
        expect(await ids({})).toEqual([earlier]);
        expect(await ids({ agent: ALICE })).toEqual([earlier]);
        const explorer = await storage.searchExplorer(store.id, { limit: 50 });
        expect(explorer.records.map((r) => r.statementId)).toEqual([earlier]);
        // Consistent-Through stays before the statement under way: a client polling with
        // since/until up to it cannot skip that statement once it becomes visible.
        const held = await storage.readBounds(Date.now());
        expect(Date.parse(held.consistentThrough)).toBeLessThan(Date.parse(row.stored));
        // GET by id decides the header the same way, in the same call as the row.
        const heldById = await storage.findStatementWithConsistentThrough(store.id, row.statementId, Date.now());
        expect(heldById.statement).toBeNull();
        expect(Date.parse(heldById.consistentThrough)).toBeLessThan(Date.parse(row.stored));
        expect((await storage.findStatementWithConsistentThrough(store.id, earlier!, Date.now())).statement?.statementId).toBe(earlier);
        expect(held.maxSeq).toBe((await storage.queryStatements(store.id, { limit: 1 })).statements[0]!.seq);

        release();
        await writes;
        const released = await storage.readBounds(Date.now());
        expect(Date.parse(released.consistentThrough)).toBeGreaterThanOrEqual(Date.parse(row.stored));
        const releasedById = await storage.findStatementWithConsistentThrough(store.id, row.statementId, Date.now());
        expect(releasedById.statement?.statementId).toBe(row.statementId);
        expect(Date.parse(releasedById.consistentThrough)).toBeGreaterThanOrEqual(Date.parse(row.stored));
        // The floor given (a statement of this process stamped and not yet written) holds it back too.
        expect((await storage.findStatementWithConsistentThrough(store.id, row.statementId, Date.parse(row.stored) - 5_000)).consistentThrough).toBe(
          new Date(Date.parse(row.stored) - 5_001).toISOString(),
        );
        // The rejection written beside it takes a seq too (the same sequence).
        expect(released.maxSeq).toBeGreaterThanOrEqual((await storage.queryStatements(store.id, { limit: 1 })).statements[0]!.seq);
        expect(released.maxSeq).toBeGreaterThan(held.maxSeq);
        expect(await storage.findStatement(store.id, row.statementId)).not.toBeNull();
        expect(await ids({})).toEqual([row.statementId, earlier]);
        // The two writes ran side by side: on PostgreSQL either may take its seq first, so
        // the newest two come in either order, both before the earlier statement.
        const records = (await storage.searchExplorer(store.id, { limit: 50 })).records.map((r) => `${r.status}:${r.statementId ?? '-'}`);
        expect(records.slice(0, 2).sort()).toEqual([`accepted:${row.statementId}`, `rejected:${rejection.statementId ?? '-'}`].sort());
        expect(records[2]).toBe(`accepted:${earlier}`);
      });
    });

    describe('Stores', () => {
      it('finds a Store by id and by slug, and lists Stores in creation order', async () => {
        const second = makeStore();
        await storage.insertStore(second);
        expect(await storage.findStoreById(store.id)).toEqual(store);
        expect(await storage.findStoreBySlug(second.slug)).toEqual(second);
        expect(await storage.findStoreBySlug('no-such-store')).toBeNull();
        expect(await storage.findStoreById('no-such-id')).toBeNull();
        expect((await storage.listStores()).map((s) => s.id)).toEqual([store.id, second.id]);
      });

      it('refuses a Store whose slug is taken or whose id exists', async () => {
        await expect(storage.insertStore(makeStore({ slug: store.slug }))).rejects.toMatchObject({ code: 'slug_taken' });
        await expect(storage.insertStore(makeStore({ id: store.id }))).rejects.toMatchObject({ code: 'store_exists' });
        expect(await storage.listStores()).toHaveLength(1);
      });

      it('updates the name and updatedAt of a Store and nothing else', async () => {
        await storage.updateStore(store.id, { name: 'Renamed', updatedAt: at(500) });
        expect(await storage.findStoreById(store.id)).toEqual({ ...store, name: 'Renamed', updatedAt: at(500) });
        await storage.updateStore(store.id, { name: 'Again' });
        expect(await storage.findStoreById(store.id)).toMatchObject({ name: 'Again', updatedAt: at(500) });
      });

      it('refuses to update a Store that does not exist', async () => {
        await expect(storage.updateStore('no-such-id', { name: 'x' })).rejects.toMatchObject({ code: 'store_not_found' });
      });

      it('deletes a Store with every key, statement and rejection of it, and leaves other Stores alone', async () => {
        const other = makeStore();
        await storage.insertStore(other);
        const key = makeApiKey(store.id);
        const otherKey = makeApiKey(other.id);
        await storage.insertApiKey(key);
        await storage.insertApiKey(otherKey);
        const [statementId] = await insert({ actor: ALICE });
        await storage.insertRejections(store.id, [makeRejection()]);
        await storage.insertStatements(other.id, [makeStatement({ id: statementId, actor: ALICE })]);
        await storage.insertRejections(other.id, [makeRejection()]);

        await storage.deleteStore(store.id);

        expect(await storage.findStoreById(store.id)).toBeNull();
        expect(await storage.findApiKey(key.id)).toBeNull();
        expect(await storage.listApiKeys(store.id)).toEqual([]);
        expect(await storage.findStatement(store.id, statementId!)).toBeNull();
        expect(await storage.stats(store.id)).toMatchObject({ statements: 0, rejections: 0 });
        expect(await storage.findApiKey(otherKey.id)).toEqual(otherKey);
        expect(await storage.findStatement(other.id, statementId!)).not.toBeNull();
        expect(await storage.stats(other.id)).toMatchObject({ statements: 1, rejections: 1 });
        // A Store created later with the same slug starts empty.
        const again = makeStore({ slug: store.slug });
        await storage.insertStore(again);
        expect((await storage.searchExplorer(again.id, { limit: 10 })).records).toEqual([]);
      });
    });

    describe('API keys', () => {
      it('finds a key by id and lists the keys of one Store only', async () => {
        const other = makeStore();
        await storage.insertStore(other);
        const a = makeApiKey(store.id);
        const b = makeApiKey(store.id, { scopes: ['all'], expiresAt: at(900) });
        const c = makeApiKey(other.id);
        for (const key of [a, b, c]) await storage.insertApiKey(key);
        expect(await storage.findApiKey(b.id)).toEqual(b);
        expect(await storage.findApiKey('lore_test_missing')).toBeNull();
        expect((await storage.listApiKeys(store.id)).map((k) => k.id)).toEqual([a.id, b.id]);
      });

      it('refuses a key for an unknown Store and a key whose id exists', async () => {
        await expect(storage.insertApiKey(makeApiKey('no-such-store'))).rejects.toMatchObject({ code: 'store_not_found' });
        const key = makeApiKey(store.id);
        await storage.insertApiKey(key);
        await expect(storage.insertApiKey({ ...key, name: 'copy' })).rejects.toMatchObject({ code: 'api_key_exists' });
      });

      it('applies a patch to the named fields only', async () => {
        const key = makeApiKey(store.id);
        await storage.insertApiKey(key);
        await storage.updateApiKey(key.id, { name: 'Renamed', revokedAt: at(10), replacedBy: 'lore_test_next' });
        expect(await storage.findApiKey(key.id)).toEqual({
          ...key,
          name: 'Renamed',
          revokedAt: at(10),
          replacedBy: 'lore_test_next',
        });
        await storage.updateApiKey(key.id, { revokedAt: null });
        expect(await storage.findApiKey(key.id)).toMatchObject({ name: 'Renamed', revokedAt: null });
      });

      it('shows a new last-used time at once', async () => {
        const key = makeApiKey(store.id);
        await storage.insertApiKey(key);
        await storage.updateApiKey(key.id, { lastUsedAt: at(30) });
        expect((await storage.findApiKey(key.id))?.lastUsedAt).toBe(at(30));
        await storage.updateApiKey(key.id, { lastUsedAt: at(40) });
        expect((await storage.listApiKeys(store.id))[0]?.lastUsedAt).toBe(at(40));
      });

      it('refuses to update a key that does not exist', async () => {
        await expect(storage.updateApiKey('lore_test_missing', { name: 'x' })).rejects.toMatchObject({
          code: 'api_key_not_found',
        });
        await expect(storage.updateApiKey('lore_test_missing', { lastUsedAt: at(1) })).rejects.toMatchObject({
          code: 'api_key_not_found',
        });
      });
    });

    describe('inserting statements', () => {
      it('stores a batch and finds each statement with its seq, stored time and key', async () => {
        const rows = [makeStatement({ storedAt: 1, keyId: 'k1' }), makeStatement({ storedAt: 1, keyId: 'k1' })];
        const result = await storage.insertStatements(store.id, rows);
        expect(result).toEqual({ ok: true, inserted: rows.map((r) => r.statementId), unchanged: [] });
        const first = await storage.findStatement(store.id, rows[0]!.statementId);
        const second = await storage.findStatement(store.id, rows[1]!.statementId);
        // Every field a StoredStatement has (`statement` may be computed when read: a getter).
        const { seq, statementId, statement, statementJson, stored, voided, keyId } = first!;
        expect({ seq, statementId, statement, statementJson, stored, voided, keyId }).toEqual({
          seq: expect.any(Number),
          statementId: rows[0]!.statementId,
          statement: rows[0]!.statement,
          // The text a read in the default format answers as is: it must be the same statement.
          statementJson: JSON.stringify(rows[0]!.statement),
          stored: at(1),
          voided: false,
          keyId: 'k1',
        });
        expect(second!.seq).toBeGreaterThan(first!.seq);
        expect(await storage.currentSeq()).toBe(second!.seq);
      });

      it('leaves a statement whose id exists with the same signature unchanged', async () => {
        const row = makeStatement();
        await storage.insertStatements(store.id, [row]);
        const before = await storage.findStatement(store.id, row.statementId);
        const fresh = makeStatement();
        const result = await storage.insertStatements(store.id, [{ ...row, stored: at(99) }, fresh]);
        expect(result).toEqual({ ok: true, inserted: [fresh.statementId], unchanged: [row.statementId] });
        expect(await storage.findStatement(store.id, row.statementId)).toEqual(before);
        expect(await storage.stats(store.id)).toMatchObject({ statements: 2 });
      });

      it('reports a repeated id inside one batch as unchanged when its signature matches', async () => {
        const row = makeStatement();
        expect(await storage.insertStatements(store.id, [row, row])).toEqual({
          ok: true,
          inserted: [row.statementId],
          unchanged: [row.statementId],
        });
      });

      it('writes nothing of a batch in which one statement conflicts, and names it', async () => {
        const existing = makeStatement();
        await storage.insertStatements(store.id, [existing]);
        const seq = await storage.currentSeq();
        const fresh = makeStatement();
        const conflicting = makeStatement({ id: existing.statementId, variant: 'other content' });
        const result = await storage.insertStatements(store.id, [fresh, conflicting]);
        expect(result).toEqual({ ok: false, conflict: { index: 1, statementId: existing.statementId } });
        expect(await storage.findStatement(store.id, fresh.statementId)).toBeNull();
        expect(await storage.currentSeq()).toBe(seq);
        const inBatch = makeStatement({ variant: 'a' });
        const result2 = await storage.insertStatements(store.id, [inBatch, { ...inBatch, signature: 'different' }]);
        expect(result2).toEqual({ ok: false, conflict: { index: 1, statementId: inBatch.statementId } });
        expect(await storage.findStatement(store.id, inBatch.statementId)).toBeNull();
      });

      it('accepts an empty batch', async () => {
        expect(await storage.insertStatements(store.id, [])).toEqual({ ok: true, inserted: [], unchanged: [] });
      });

      it('refuses statements for a Store that does not exist', async () => {
        await expect(storage.insertStatements('no-such-store', [makeStatement()])).rejects.toMatchObject({
          code: 'store_not_found',
        });
        await expect(storage.insertRejections('no-such-store', [makeRejection()])).rejects.toMatchObject({
          code: 'store_not_found',
        });
      });
    });

    describe('voiding', () => {
      it('hides a voided statement from queries but still finds it, marked voided', async () => {
        const [target] = await insert({ actor: ALICE });
        const [voiding] = await insert({ actor: ALICE, voids: target });
        expect(await storage.findStatement(store.id, target!)).toMatchObject({ voided: true });
        expect(await storage.findStatement(store.id, voiding!)).toMatchObject({ voided: false });
        expect(await ids({})).toEqual([voiding]);
        expect(await ids({ agent: ALICE })).toEqual([voiding]);
      });

      it('stores a statement voided when its voiding statement arrived first', async () => {
        const targetId = randomUUID();
        await insert({ voids: targetId });
        await insert({ id: targetId });
        expect(await storage.findStatement(store.id, targetId)).toMatchObject({ voided: true });
      });

      it('voids a target that arrives in the same batch as its voiding statement', async () => {
        const targetId = randomUUID();
        await insert({ id: targetId }, { voids: targetId });
        const otherTarget = randomUUID();
        await insert({ voids: otherTarget }, { id: otherTarget });
        expect(await storage.findStatement(store.id, targetId)).toMatchObject({ voided: true });
        expect(await storage.findStatement(store.id, otherTarget)).toMatchObject({ voided: true });
      });

      it('stores and voids a statement whose id the LRS made (idMadeByLrs) as any, before and after a reopen', async () => {
        const given = makeStatement({ actor: ALICE });
        const made = { ...makeStatement({ actor: ALICE }), idMadeByLrs: true as const };
        const kept = { ...makeStatement({ actor: BOB }), idMadeByLrs: true as const };
        // Sent before the statement it voids, whose id its client gave: that one is still found voided.
        await insert({ voids: given.statementId });
        expect(await storage.insertStatements(store.id, [given, made, kept])).toMatchObject({ ok: true, inserted: [given.statementId, made.statementId, kept.statementId] });
        await insert({ voids: made.statementId });
        const voided = async () => Promise.all([given, made, kept].map(async (row) => (await storage.findStatement(store.id, row.statementId))?.voided));
        expect(await voided()).toEqual([true, true, false]);
        await reopen();
        expect(await voided()).toEqual([true, true, false]);
        expect(await ids({ agent: BOB })).toEqual([kept.statementId]);
      });

      it('compares a statement written without its signature (null) by the one computed from it', async () => {
        const row = makeStatement({ actor: ALICE });
        const unsigned: StatementRow = { ...row, signature: null, idMadeByLrs: true };
        await storage.insertStatements(store.id, [unsigned]);
        const resent = { ...row, signature: statementSignature(row.statement) };
        const otherStatement = { ...row.statement, result: { response: 'other' } };
        const other = { ...row, statement: otherStatement, signature: statementSignature(otherStatement) };
        for (const round of ['written', 'reopened']) {
          if (round === 'reopened') await reopen();
          expect(await storage.insertStatements(store.id, [resent]), round).toEqual({ ok: true, inserted: [], unchanged: [unsigned.statementId] });
          expect(await storage.insertStatements(store.id, [other]), round).toEqual({ ok: false, conflict: { index: 0, statementId: unsigned.statementId } });
        }
      });
    });

    describe('querying statements', () => {
      it('matches the agent filter on the actor (primary) unless related agents are asked for', async () => {
        const [byAlice] = await insert({ actor: ALICE });
        const [withAliceAsInstructor] = await insert({ actor: BOB, relatedAgents: [ALICE] });
        expect(await ids({ agent: ALICE })).toEqual([byAlice]);
        expect(await ids({ agent: ALICE, relatedAgents: true })).toEqual([withAliceAsInstructor, byAlice]);
        expect(await ids({ agent: TEACHER, relatedAgents: true })).toEqual([]);
      });

      it('matches an agent that is both primary and related in one statement once', async () => {
        const [both] = await insert({ actor: ALICE, relatedAgents: [ALICE] });
        expect(await ids({ agent: ALICE })).toEqual([both]);
        expect(await ids({ agent: ALICE, relatedAgents: true })).toEqual([both]);
      });

      it('matches the activity filter on the object unless related activities are asked for', async () => {
        const [onCourse] = await insert({ activity: COURSE });
        const [inModule] = await insert({ activity: MODULE, relatedActivities: [COURSE] });
        expect(await ids({ activityId: COURSE })).toEqual([onCourse]);
        expect(await ids({ activityId: COURSE, relatedActivities: true })).toEqual([inModule, onCourse]);
        expect(await ids({ activityId: MODULE })).toEqual([inModule]);
      });

      it('filters by verb and by registration', async () => {
        const registration = randomUUID();
        const [completed] = await insert({ verb: COMPLETED });
        const [attempted] = await insert({ verb: ATTEMPTED, registration });
        expect(await ids({ verbId: COMPLETED })).toEqual([completed]);
        expect(await ids({ verbId: ATTEMPTED })).toEqual([attempted]);
        expect(await ids({ registration })).toEqual([attempted]);
        expect(await ids({ registration, verbId: COMPLETED })).toEqual([]);
      });

      it('combines filters: agent with verb, agent with activity, related agent with registration', async () => {
        const registration = randomUUID();
        const [aliceCourse] = await insert({ actor: ALICE, activity: COURSE, verb: COMPLETED });
        const [aliceOther] = await insert({ actor: ALICE, activity: OTHER_COURSE, verb: ATTEMPTED });
        const [bobCourse] = await insert({ actor: BOB, activity: COURSE, relatedAgents: [ALICE], registration, verb: ATTEMPTED });
        expect(await ids({ agent: ALICE, verbId: ATTEMPTED })).toEqual([aliceOther]);
        expect(await ids({ agent: ALICE, activityId: COURSE })).toEqual([aliceCourse]);
        expect(await ids({ agent: ALICE, activityId: COURSE, relatedAgents: true })).toEqual([bobCourse, aliceCourse]);
        expect(await ids({ agent: ALICE, relatedAgents: true, registration })).toEqual([bobCourse]);
        expect(await ids({ activityId: COURSE, verbId: COMPLETED })).toEqual([aliceCourse]);
      });

      it('bounds stored time: since is exclusive, until is inclusive, in any time zone notation', async () => {
        const [t10, t20, t30] = await insert({ storedAt: 10 }, { storedAt: 20 }, { storedAt: 30 });
        expect(await ids({ since: at(10) })).toEqual([t30, t20]);
        expect(await ids({ until: at(20) })).toEqual([t20, t10]);
        expect(await ids({ since: at(10), until: at(20) })).toEqual([t20]);
        // 10:00:20Z written as 12:00:20+02:00.
        const plusTwo = new Date(Date.parse(at(20)) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
        expect(await ids({ until: plusTwo })).toEqual([t20, t10]);
      });

      it('returns newest first by default and oldest first when ascending', async () => {
        const inserted = await insert({}, {}, {});
        expect(await ids({})).toEqual([...inserted].reverse());
        expect(await ids({ ascending: true })).toEqual(inserted);
      });

      it('pages with limit and afterSeq in either direction, and says when no more rows match', async () => {
        const inserted: string[] = [];
        for (let i = 0; i < 7; i++) inserted.push(...(await insert({ actor: ALICE })));
        for (const ascending of [false, true]) {
          const seen: string[] = [];
          let afterSeq: number | undefined;
          let pages = 0;
          for (;;) {
            const page = await storage.queryStatements(store.id, { agent: ALICE, ascending, limit: 3, afterSeq });
            seen.push(...page.statements.map((s) => s.statementId));
            pages++;
            if (page.nextAfterSeq === null) break;
            afterSeq = page.nextAfterSeq;
          }
          expect(pages).toBe(3);
          expect(seen).toEqual(ascending ? inserted : [...inserted].reverse());
        }
        const exact = await storage.queryStatements(store.id, { limit: 7 });
        expect(exact.statements).toHaveLength(7);
        expect(exact.nextAfterSeq).toBeNull();
      });

      it('keeps a page stable with maxSeq while newer statements arrive', async () => {
        const first = await insert({}, {}, {});
        const maxSeq = await storage.currentSeq();
        const page1 = await storage.queryStatements(store.id, { limit: 2, maxSeq });
        await insert({}, {});
        const page2 = await storage.queryStatements(store.id, { limit: 2, maxSeq, afterSeq: page1.nextAfterSeq! });
        expect([...page1.statements, ...page2.statements].map((s) => s.statementId)).toEqual([...first].reverse());
        expect(page2.nextAfterSeq).toBeNull();
        expect(await ids({ maxSeq, ascending: true })).toEqual(first);
      });

      it('with keyId, returns only the statements sent with that key, and pages within them', async () => {
        const [a1] = await insert({ keyId: 'k1' });
        await insert({ keyId: 'k2' });
        const [a2] = await insert({ keyId: 'k1', verb: 'http://example.com/verbs/tried' });
        expect(await ids({ keyId: 'k1' })).toEqual([a2, a1]);
        expect(await ids({ keyId: 'k1', verbId: 'http://example.com/verbs/tried' })).toEqual([a2]);
        expect(await ids({ keyId: 'nobody' })).toEqual([]);
        const page1 = await storage.queryStatements(store.id, { keyId: 'k1', limit: 1 });
        const page2 = await storage.queryStatements(store.id, { keyId: 'k1', limit: 1, afterSeq: page1.nextAfterSeq! });
        expect([...page1.statements, ...page2.statements].map((s) => s.statementId)).toEqual([a2, a1]);
        expect(page2.nextAfterSeq).toBeNull();
      });

      it('rejects a limit below 1', async () => {
        await expect(storage.queryStatements(store.id, { limit: 0 })).rejects.toThrow(RangeError);
      });
    });

    describe('isolation between Stores', () => {
      it('keeps the same statement id in two Stores apart, in writes, reads and queries', async () => {
        const other = makeStore();
        await storage.insertStore(other);
        const row = makeStatement({ actor: ALICE });
        await storage.insertStatements(store.id, [row]);
        const different = makeStatement({ id: row.statementId, actor: ALICE, variant: 'other' });
        expect(await storage.insertStatements(other.id, [different])).toMatchObject({ ok: true });
        expect((await storage.findStatement(other.id, row.statementId))?.statement).toEqual(different.statement);
        expect((await storage.findStatement(store.id, row.statementId))?.statement).toEqual(row.statement);
        expect(await ids({ agent: ALICE })).toEqual([row.statementId]);
        await storage.insertStatements(other.id, [makeStatement({ voids: row.statementId })]);
        expect(await storage.findStatement(store.id, row.statementId)).toMatchObject({ voided: false });
        await storage.insertRejections(other.id, [makeRejection()]);
        expect((await storage.searchExplorer(store.id, { limit: 10 })).records).toHaveLength(1);
        expect(await storage.stats(store.id)).toMatchObject({ statements: 1, rejections: 0 });
        expect(await storage.stats()).toMatchObject({ statements: 3, rejections: 1 });
      });

      it('answers reads for an unknown Store with nothing', async () => {
        await insert({});
        expect(await storage.findStatement('no-such-store', 'x')).toBeNull();
        expect(await storage.queryStatements('no-such-store', { limit: 5 })).toEqual({ statements: [], nextAfterSeq: null });
        expect(await storage.searchExplorer('no-such-store', { limit: 5 })).toEqual({ records: [], nextBeforeSeq: null });
        expect(await storage.stats('no-such-store')).toMatchObject({ statements: 0, rejections: 0 });
      });
    });

    describe('rejections and the Statement Explorer', () => {
      it('shows accepted, voided and rejected records newest first, sharing one seq order', async () => {
        const [target] = await insert({ actor: ALICE, storedAt: 1 });
        await storage.insertRejections(store.id, [makeRejection({ receivedAt: 2, statementId: 'sent-id' })]);
        const [voiding] = await insert({ actor: ALICE, voids: target, storedAt: 3 });
        const page = await storage.searchExplorer(store.id, { limit: 10 });
        expect(page.nextBeforeSeq).toBeNull();
        expect(page.records.map((r) => [r.status, r.statementId])).toEqual([
          ['accepted', voiding],
          ['rejected', 'sent-id'],
          ['voided', target],
        ]);
        const rejected = page.records[1]!;
        expect(rejected).toEqual({
          seq: expect.any(Number),
          status: 'rejected',
          statementId: 'sent-id',
          receivedAt: at(2),
          keyId: 'lore_test_key',
          payload: makeRejection().payload,
          error: makeRejection().error,
        });
        expect(rejected).not.toHaveProperty('stored');
        expect(page.records[0]!.seq).toBeGreaterThan(rejected.seq);
        expect(rejected.seq).toBeGreaterThan(page.records[2]!.seq);
        expect(page.records[2]).toMatchObject({ receivedAt: at(1), error: null, keyId: 'lore_test_key' });
      });

      it('shows a statement as it was received and as stored, across a reopen', async () => {
        const plain = makeStatement({ storedAt: 1 });
        plain.lrsAdded = ['id', 'stored'];
        const copied = makeStatement({ storedAt: 2 });
        copied.lrsAdded = ['stored'];
        copied.received = { id: copied.statementId.toUpperCase(), actor: { mbox: 'mailto:learner@example.com' }, note: 'as sent' };
        // Rows written before the received form was recorded.
        const older = makeStatement({ storedAt: 3 });
        const result = await storage.insertStatements(store.id, [plain, copied, older]);
        expect(result.ok).toBe(true);
        const { id: _id, stored: _stored, ...plainAsSent } = plain.statement;
        const expected = [
          { statementId: older.statementId, statement: older.statement, stored: older.statement },
          { statementId: copied.statementId, statement: copied.received, stored: copied.statement },
          { statementId: plain.statementId, statement: plainAsSent, stored: plain.statement },
        ];
        const shown = async () =>
          (await storage.searchExplorer(store.id, { limit: 10 })).records.map(({ statementId, stored, received, lrsAdded }) => ({
            statementId,
            statement: statementAsReceived(stored!, received, lrsAdded),
            stored,
          }));
        expect(await shown()).toEqual(expected);
        await reopen();
        expect(await shown()).toEqual(expected);
        expect((await storage.findStatement(store.id, copied.statementId))?.statement).toEqual(copied.statement);
      });

      it('filters by status', async () => {
        const [target] = await insert({});
        const [voiding] = await insert({ voids: target });
        await storage.insertRejections(store.id, [makeRejection({ statementId: 'bad' })]);
        const statuses = async (status: 'accepted' | 'voided' | 'rejected') =>
          (await storage.searchExplorer(store.id, { status, limit: 10 })).records.map((r) => r.statementId);
        expect(await statuses('accepted')).toEqual([voiding]);
        expect(await statuses('voided')).toEqual([target]);
        expect(await statuses('rejected')).toEqual(['bad']);
      });

      it('filters by agent, activity and verb: any term of a statement, the indexed columns of a rejection', async () => {
        const [byAlice] = await insert({ actor: ALICE, activity: COURSE, verb: COMPLETED });
        const [aliceRelated] = await insert({
          actor: BOB,
          relatedAgents: [ALICE],
          activity: MODULE,
          relatedActivities: [COURSE],
          verb: ATTEMPTED,
        });
        await storage.insertRejections(store.id, [
          makeRejection({ statementId: 'r-alice', agent: ALICE, activity: OTHER_COURSE, verb: ATTEMPTED }),
          makeRejection({ statementId: 'r-unknown', agent: null, activity: null, verb: null }),
        ]);
        const search = async (q: { agent?: string; activityId?: string; verbId?: string }) =>
          (await storage.searchExplorer(store.id, { ...q, limit: 10 })).records.map((r) => r.statementId);
        expect(await search({ agent: ALICE })).toEqual(['r-alice', aliceRelated, byAlice]);
        expect(await search({ activityId: COURSE })).toEqual([aliceRelated, byAlice]);
        expect(await search({ activityId: OTHER_COURSE })).toEqual(['r-alice']);
        expect(await search({ verbId: ATTEMPTED })).toEqual(['r-alice', aliceRelated]);
        expect(await search({ agent: ALICE, verbId: COMPLETED })).toEqual([byAlice]);
        expect(await search({})).toHaveLength(4);
      });

      it('bounds received time inclusively at both ends', async () => {
        const [t10, t20, t30] = await insert({ storedAt: 10 }, { storedAt: 20 }, { storedAt: 30 });
        await storage.insertRejections(store.id, [
          makeRejection({ statementId: 'r15', receivedAt: 15 }),
          makeRejection({ statementId: 'r30', receivedAt: 30 }),
        ]);
        const page = await storage.searchExplorer(store.id, { since: at(10), until: at(20), limit: 10 });
        expect(page.records.map((r) => r.statementId)).toEqual(['r15', t20, t10]);
        const later = await storage.searchExplorer(store.id, { since: at(30), limit: 10 });
        expect(later.records.map((r) => r.statementId)).toEqual(['r30', t30]);
      });

      it('pages below beforeSeq through statements and rejections alike', async () => {
        const expected: string[] = [];
        for (let i = 0; i < 5; i++) {
          expected.push(...(await insert({})));
          await storage.insertRejections(store.id, [makeRejection({ statementId: `r${i}` })]);
          expected.push(`r${i}`);
        }
        expected.reverse();
        const seen: string[] = [];
        let beforeSeq: number | undefined;
        for (;;) {
          const page = await storage.searchExplorer(store.id, { limit: 4, beforeSeq });
          expect(page.records.length).toBeLessThanOrEqual(4);
          seen.push(...page.records.map((r) => r.statementId!));
          if (page.nextBeforeSeq === null) break;
          beforeSeq = page.nextBeforeSeq;
        }
        expect(seen).toEqual(expected);
      });

      it('counts statements and rejections per Store and in total', async () => {
        await insert({}, {});
        await storage.insertRejections(store.id, [makeRejection(), makeRejection(), makeRejection()]);
        const stats = await storage.stats(store.id);
        expect(stats).toMatchObject({ statements: 2, rejections: 3 });
        expect(stats.databaseBytes).toBeGreaterThan(0);
        expect(await storage.stats()).toMatchObject({ statements: 2, rejections: 3 });
      });
    });

    describe('durability', () => {
      it('keeps everything across close and reopen', async () => {
        const key = makeApiKey(store.id);
        await storage.insertApiKey(key);
        await storage.updateApiKey(key.id, { lastUsedAt: at(77) });
        const [target] = await insert({ actor: ALICE, relatedAgents: [TEACHER], activity: COURSE });
        const [voiding] = await insert({ voids: target });
        const [kept] = await insert({ actor: BOB, verb: ATTEMPTED, storedAt: 5 });
        await storage.insertRejections(store.id, [makeRejection({ statementId: 'bad' })]);
        await storage.updateStore(store.id, { name: 'Renamed' });
        const seq = await storage.currentSeq();
        const explorerBefore = await storage.searchExplorer(store.id, { limit: 10 });

        await reopen();

        expect(await storage.findStoreById(store.id)).toMatchObject({ name: 'Renamed' });
        expect(await storage.findApiKey(key.id)).toEqual({ ...key, lastUsedAt: at(77) });
        expect(await storage.findStatement(store.id, target!)).toMatchObject({ voided: true });
        expect(await ids({})).toEqual([kept, voiding]);
        expect(await ids({ agent: TEACHER, relatedAgents: true })).toEqual([]);
        expect(await ids({ verbId: ATTEMPTED })).toEqual([kept]);
        expect(await storage.searchExplorer(store.id, { limit: 10 })).toEqual(explorerBefore);
        expect(await storage.currentSeq()).toBe(seq);
        expect(await storage.stats(store.id)).toMatchObject({ statements: 3, rejections: 1 });
        const [later] = await insert({});
        expect((await storage.findStatement(store.id, later!))!.seq).toBeGreaterThan(seq);
      });

      it('never hands out a seq again, even after the rows that had it are deleted', async () => {
        const other = makeStore();
        await storage.insertStore(other);
        await storage.insertStatements(other.id, [makeStatement(), makeStatement()]);
        const seq = await storage.currentSeq();
        await storage.deleteStore(other.id);
        await reopen();
        expect(await storage.findStoreById(other.id)).toBeNull();
        const [next] = await insert({});
        expect((await storage.findStatement(store.id, next!))!.seq).toBeGreaterThan(seq);
      });
    });
  });
}
