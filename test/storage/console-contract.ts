/**
 * The console's part of the Storage contract (emptying a Store, ingestion statistics), run by
 * describeStorageContract for every implementation, across reopen (and crash replay) variants.
 */
import { describe, expect, it } from 'vitest';
import type { IngestionQuery } from '../../src-server/storage/storage';
import { ATTEMPTED, COMPLETED, COURSE, MODULE, at, makeApiKey, makeRejection, makeStatement, makeStore } from './rows';
import type { ContractContext } from './storage-contract';


/** A day's report around BASE_TIME (2024-05-01T10:00Z), hour buckets. */
function day(overrides: Partial<IngestionQuery> = {}): IngestionQuery {
  return { bucket: 'hour', since: '2024-05-01T00:00:00.000Z', until: '2024-05-02T00:00:00.000Z', top: 10, ...overrides };
}

export function describeConsoleContract(ctx: ContractContext): void {
  describe('console statistics and maintenance', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;

    async function insert(...specs: Parameters<typeof makeStatement>[0][]): Promise<void> {
      const result = await s().insertStatements(storeId(), specs.map((spec) => makeStatement(spec)));
      if (!result.ok) throw new Error('unexpected conflict');
    }

    it('counts accepted, voiding and rejected statements per bucket, with totals', async () => {
      const target = crypto.randomUUID();
      await insert({ id: target, storedAt: 0 }, { storedAt: 30 }, { storedAt: 3600 });
      await insert({ voids: target, storedAt: 3601 });
      await s().insertRejections(storeId(), [makeRejection({ receivedAt: 10 }), makeRejection({ receivedAt: 3700 })]);
      await ctx.reopen();
      const report = await s().ingestionReport({ ...day(), storeId: storeId() });
      expect(report.series).toEqual([
        { start: '2024-05-01T10:00:00.000Z', accepted: 2, rejected: 1 },
        { start: '2024-05-01T11:00:00.000Z', accepted: 2, rejected: 1 },
      ]);
      expect(report.totals).toEqual({ accepted: 4, voided: 1, rejected: 2 });
    });

    it('buckets by minute and by UTC day', async () => {
      await insert({ storedAt: 0 }, { storedAt: 59 }, { storedAt: 60 }, { storedAt: 86_400 });
      const minutes = await s().ingestionReport({ ...day({ bucket: 'minute' }), storeId: storeId() });
      expect(minutes.series.map((p) => [p.start, p.accepted])).toEqual([
        ['2024-05-01T10:00:00.000Z', 2],
        ['2024-05-01T10:01:00.000Z', 1],
      ]);
      const days = await s().ingestionReport({
        bucket: 'day',
        since: '2024-04-01T00:00:00.000Z',
        until: '2024-06-01T00:00:00.000Z',
        top: 10,
        storeId: storeId(),
      });
      expect(days.series.map((p) => [p.start, p.accepted])).toEqual([
        ['2024-05-01T00:00:00.000Z', 3],
        ['2024-05-02T00:00:00.000Z', 1],
      ]);
    });

    it('counts only the range asked for: since inclusive, until exclusive', async () => {
      await insert({ storedAt: -1 }, { storedAt: 0 }, { storedAt: 3599 }, { storedAt: 3600 });
      const report = await s().ingestionReport({
        ...day({ since: at(0), until: at(3600) }),
        storeId: storeId(),
      });
      expect(report.totals.accepted).toBe(2);
    });

    it('ranks the top verbs and object activities of accepted statements, most first', async () => {
      await insert(
        { verb: COMPLETED, activity: COURSE },
        { verb: ATTEMPTED, activity: MODULE },
        { verb: ATTEMPTED, activity: MODULE },
        { verb: ATTEMPTED, activity: COURSE, storedAt: 7200 },
      );
      const report = await s().ingestionReport({ ...day(), storeId: storeId() });
      expect(report.topVerbs).toEqual([
        { id: ATTEMPTED, count: 3 },
        { id: COMPLETED, count: 1 },
      ]);
      expect(report.topActivities).toEqual([
        { id: COURSE, count: 2 },
        { id: MODULE, count: 2 },
      ]);
      expect((await s().ingestionReport({ ...day(), storeId: storeId(), top: 1 })).topVerbs).toEqual([{ id: ATTEMPTED, count: 3 }]);
    });

    it('names verbs by their display and activities by the definition the Store keeps, in one Store or any', async () => {
      const row = makeStatement({ verb: COMPLETED, activity: COURSE });
      (row.statement['verb'] as Record<string, unknown>)['display'] = { 'en-US': 'completed', 'fr-FR': 'terminé' };
      row.activityDefinitions = [{ activityId: COURSE, definition: { name: { 'en-US': 'The course' } } }];
      await s().insertStatements(storeId(), [row]);
      await insert({ verb: ATTEMPTED, activity: MODULE });
      const expected = { verbs: { [COMPLETED]: { 'en-US': 'completed', 'fr-FR': 'terminé' } }, activities: { [COURSE]: { 'en-US': 'The course' } } };
      expect(await s().displayNames({ storeId: storeId(), verbIds: [COMPLETED, ATTEMPTED], activityIds: [COURSE, MODULE] })).toEqual(expected);
      expect(await s().displayNames({ verbIds: [COMPLETED, ATTEMPTED], activityIds: [COURSE, MODULE] })).toEqual(expected);
      await ctx.reopen();
      expect(await s().displayNames({ storeId: storeId(), verbIds: [COMPLETED], activityIds: [COURSE] })).toEqual(expected);
    });

    it('ranks over several days exactly: whole days and the hours at either edge, nothing outside', async () => {
      const hours = (h: number) => h * 3600;
      // BASE_TIME is 2024-05-01T10:00Z; the range is 2024-04-30T22:00Z to 2024-05-03T02:00Z.
      await insert(
        { verb: COMPLETED, storedAt: hours(-13) }, // 04-30 21:00, before
        { verb: COMPLETED, storedAt: hours(-11) }, // 04-30 23:00, edge hour
        { verb: COMPLETED, storedAt: 0 }, // 05-01, a whole day
        { verb: COMPLETED, storedAt: hours(39) }, // 05-03 01:00, edge hour
        { verb: COMPLETED, storedAt: hours(40) }, // 05-03 02:00, after
      );
      const report = await s().ingestionReport({
        storeId: storeId(),
        bucket: 'hour',
        since: '2024-04-30T22:00:00.000Z',
        until: '2024-05-03T02:00:00.000Z',
        top: 10,
      });
      expect(report.topVerbs).toEqual([{ id: COMPLETED, count: 3 }]);
      expect(report.totals.accepted).toBe(3);
    });

    it("keeps each Store's counts apart and sums every Store's when no Store is named", async () => {
      const other = makeStore();
      await s().insertStore(other);
      await insert({}, {});
      await s().insertStatements(other.id, [makeStatement({})]);
      await s().insertRejections(other.id, [makeRejection({})]);
      expect((await s().ingestionReport({ ...day(), storeId: storeId() })).totals).toEqual({ accepted: 2, voided: 0, rejected: 0 });
      expect((await s().ingestionReport({ ...day(), storeId: other.id })).totals).toEqual({ accepted: 1, voided: 0, rejected: 1 });
      expect((await s().ingestionReport(day())).totals).toEqual({ accepted: 3, voided: 0, rejected: 1 });
    });

    it('reports nothing for an unknown Store', async () => {
      await insert({});
      const report = await s().ingestionReport({ ...day(), storeId: crypto.randomUUID() });
      expect(report).toEqual({ series: [], totals: { accepted: 0, voided: 0, rejected: 0 }, topVerbs: [], topActivities: [] });
    });

    it('does not count a statement sent again unchanged', async () => {
      const row = makeStatement({});
      await s().insertStatements(storeId(), [row]);
      await s().insertStatements(storeId(), [row]);
      expect((await s().ingestionReport({ ...day(), storeId: storeId() })).totals.accepted).toBe(1);
    });

    it('counts each statement once across reports, later writes and a reopen', async () => {
      await insert({ storedAt: 0 }, { storedAt: 1 });
      expect((await s().ingestionReport({ ...day(), storeId: storeId() })).totals.accepted).toBe(2);
      await insert({ storedAt: 2 });
      await s().insertRejections(storeId(), [makeRejection({ receivedAt: 3 })]);
      expect((await s().ingestionReport({ ...day(), storeId: storeId() })).totals).toEqual({ accepted: 3, voided: 0, rejected: 1 });
      await insert({ storedAt: 4 });
      await ctx.reopen();
      expect((await s().ingestionReport({ ...day(), storeId: storeId() })).totals).toEqual({ accepted: 4, voided: 0, rejected: 1 });
      const report = await s().ingestionReport({ ...day(), storeId: storeId() });
      expect(report.topVerbs.reduce((sum, verb) => sum + verb.count, 0)).toBe(4);
    });

    it('empties a Store of statements, rejections, documents, definitions and statistics, keeping the Store and its keys', async () => {
      const key = makeApiKey(storeId());
      await s().insertApiKey(key);
      const row = { ...makeStatement({}), activityDefinitions: [{ activityId: COURSE, definition: { name: { 'en-US': 'Course' } } }] };
      await s().insertStatements(storeId(), [row]);
      await s().insertRejections(storeId(), [makeRejection({})]);
      const docKey = { kind: 'state' as const, activityId: COURSE, agent: 'mbox:mailto:a@example.com', registration: null, id: 'bookmark' };
      const content = { contentType: 'text/plain', content: new TextEncoder().encode('x'), etag: 'e', updated: at(1) };
      await s().upsertDocument(storeId(), docKey, content, null);
      const other = makeStore();
      await s().insertStore(other);
      await s().insertStatements(other.id, [makeStatement({})]);

      await s().emptyStore(storeId());
      await ctx.reopen();

      expect(await s().findStoreById(storeId())).toEqual(ctx.store());
      expect((await s().findApiKey(key.id))?.id).toBe(key.id);
      expect(await s().findStatement(storeId(), row.statementId)).toBeNull();
      expect((await s().searchExplorer(storeId(), { limit: 10 })).records).toEqual([]);
      expect(await s().findDocument(storeId(), docKey)).toBeNull();
      expect(await s().findActivity(storeId(), COURSE)).toBeNull();
      expect(await s().stats(storeId())).toMatchObject({ statements: 0, rejections: 0 });
      expect((await s().ingestionReport({ ...day(), storeId: storeId() })).totals).toEqual({ accepted: 0, voided: 0, rejected: 0 });
      // Another Store is untouched.
      expect(await s().stats(other.id)).toMatchObject({ statements: 1 });
    });

    it("leaves no statistics behind when a Store is deleted, for a Store created after it", async () => {
      const gone = makeStore();
      await s().insertStore(gone);
      await s().insertStatements(gone.id, [makeStatement({})]);
      await s().insertRejections(gone.id, [makeRejection({})]);
      await s().deleteStore(gone.id);
      const next = makeStore();
      await s().insertStore(next);
      await ctx.reopen();
      expect((await s().ingestionReport({ ...day(), storeId: next.id })).totals).toEqual({ accepted: 0, voided: 0, rejected: 0 });
      expect((await s().ingestionReport(day())).totals).toEqual({ accepted: 0, voided: 0, rejected: 0 });
    });

    it('takes statements again after being emptied, the same ids included', async () => {
      const row = makeStatement({});
      await s().insertStatements(storeId(), [row]);
      await s().emptyStore(storeId());
      const again = await s().insertStatements(storeId(), [row]);
      expect(again).toEqual({ ok: true, inserted: [row.statementId], unchanged: [] });
      await ctx.reopen();
      expect((await s().findStatement(storeId(), row.statementId))?.statementId).toBe(row.statementId);
    });
  });
}
