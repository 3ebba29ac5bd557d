/**
 * Retention on PostgreSQL: the rejected log and the logs of refused requests are pruned to the
 * same bounds as on sql.js (test/storage/sqljs-retention.test.ts), statements and statistics untouched.
 */
import { describe, expect, it } from 'vitest';
import type { RefusalRow } from '../../src-server/storage/storage';
import { postgresPerTest } from '../postgres/per-test';
import { BASE_TIME, at, makeRejection, makeStatement, makeStore } from './rows';

const DAY = 24 * 60 * 60;
const now = BASE_TIME + 31 * DAY * 1000;
const postgres = postgresPerTest();

const open = (bounds = { maxPerStore: 5, maxAgeDays: 30 }) =>
  postgres.openFresh({ poolSize: 2, rejectionRetention: { forStore: () => bounds, intervalMs: 3_600_000 } });

function refusal(seconds: number): RefusalRow {
  return { at: at(seconds), lastAt: at(seconds), count: 1, method: 'GET', path: '/x', status: 401, code: 'unauthorized', reason: 'no', keyId: null, client: '127.0.0.1', userAgent: null };
}

describe('retention on PostgreSQL', () => {
  it('keeps the newest rejections up to the count per Store, the young ones only, and leaves statements and statistics', async () => {
    const storage = await open();
    const [a, b] = [makeStore(), makeStore()];
    await storage.insertStore(a);
    await storage.insertStore(b);
    await storage.insertRejections(a.id, Array.from({ length: 8 }, (_, i) => makeRejection({ receivedAt: DAY * 30 + i })));
    await storage.insertRejections(b.id, [makeRejection({ receivedAt: 0 }), makeRejection({ receivedAt: DAY * 30 })]);
    await storage.insertStatements(a.id, [makeStatement({ storedAt: DAY * 30 })]);
    const kept = (await storage.searchExplorer(a.id, { status: 'rejected', limit: 100 })).records.map((r) => r.seq).slice(0, 5);
    const report = () => storage.ingestionReport({ bucket: 'day', since: new Date(BASE_TIME).toISOString(), until: new Date(now + DAY * 1000).toISOString(), top: 10 });
    const before = await report();

    expect(await storage.pruneLogs(now)).toBe(4); // 3 beyond the count in a, 1 too old in b
    expect((await storage.searchExplorer(a.id, { status: 'rejected', limit: 100 })).records.map((r) => r.seq)).toEqual(kept);
    expect((await storage.stats(b.id)).rejections).toBe(1);
    expect((await storage.stats(a.id)).statements).toBe(1);
    expect(await report()).toEqual(before);
    expect(await storage.pruneLogs(now)).toBe(0);
  });

  it('prunes the logs of refused requests, each Store\'s and the service\'s, by the same bounds', async () => {
    const storage = await open();
    const store = makeStore();
    await storage.insertStore(store);
    await storage.insertRefusals([
      ...Array.from({ length: 7 }, (_, i) => ({ ...refusal(DAY * 30 + i), storeId: store.id })),
      { ...refusal(0), storeId: null },
      { ...refusal(DAY * 30), storeId: null },
    ]);
    await storage.pruneLogs(now);
    expect((await storage.listRefusals({ storeId: store.id, limit: 100 })).refusals).toHaveLength(5);
    expect((await storage.listRefusals({ storeId: null, limit: 100 })).refusals.map((r) => r.at)).toEqual([at(DAY * 30)]);
  });
});
