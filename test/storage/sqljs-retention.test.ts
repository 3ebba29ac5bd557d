import { afterEach, describe, expect, it } from 'vitest';
import { PRUNE_CHUNK } from '../../src-server/storage/sqljs/retention';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { BASE_TIME, makeRejection, makeStatement } from './rows';
import { crashCopy, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

const DAY = 24 * 60 * 60;
const opened: SqljsStorage[] = [];

afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close();
  await removeTempDirs();
});

async function open(dir: string, bounds = { maxPerStore: 5, maxAgeDays: 30 }): Promise<SqljsStorage> {
  const storage = await openIn(dir, { rejectionRetention: { forStore: () => bounds } });
  opened.push(storage);
  return storage;
}

async function rejectionSeqs(storage: SqljsStorage, storeId: string): Promise<number[]> {
  const page = await storage.searchExplorer(storeId, { status: 'rejected', limit: 100_000 });
  return page.records.map((record) => record.seq);
}

const now = BASE_TIME + 31 * DAY * 1000;

describe('retention of the rejected-statement log (sql.js)', () => {
  it('keeps the newest rejections up to the count per Store, and leaves other Stores, statements and statistics as they were', async () => {
    const storage = await open(await tempDir());
    const [a, b] = [await withStore(storage), await withStore(storage)];
    await storage.insertRejections(a.id, Array.from({ length: 8 }, (_, i) => makeRejection({ receivedAt: DAY * 30 + i })));
    await storage.insertRejections(b.id, Array.from({ length: 3 }, () => makeRejection({ receivedAt: DAY * 30 })));
    await storage.insertStatements(a.id, [makeStatement({ storedAt: DAY * 30 })]);
    const kept = (await rejectionSeqs(storage, a.id)).slice(0, 5);
    const statisticsBefore = await storage.ingestionReport({ bucket: 'day', since: new Date(BASE_TIME).toISOString(), until: new Date(now + DAY * 1000).toISOString(), top: 10 });

    expect(await storage.pruneRejections(now)).toBe(3);
    expect(await rejectionSeqs(storage, a.id)).toEqual(kept);
    expect(await rejectionSeqs(storage, b.id)).toHaveLength(3);
    expect((await storage.stats(a.id)).rejections).toBe(5);
    expect((await storage.stats(a.id)).statements).toBe(1);
    const statisticsAfter = await storage.ingestionReport({ bucket: 'day', since: new Date(BASE_TIME).toISOString(), until: new Date(now + DAY * 1000).toISOString(), top: 10 });
    expect(statisticsAfter).toEqual(statisticsBefore);
    expect(await storage.pruneRejections(now)).toBe(0);
  });

  it('deletes rejections older than the age limit', async () => {
    const storage = await open(await tempDir());
    const store = await withStore(storage);
    await storage.insertRejections(store.id, [makeRejection({ receivedAt: 0 }), makeRejection({ receivedAt: DAY }), makeRejection({ receivedAt: DAY * 2 })]);
    const newest = (await rejectionSeqs(storage, store.id))[0];
    // Now is 31 days after BASE_TIME: with 30 days kept, the ones received on day 0 and day 1 go.
    expect(await storage.pruneRejections(BASE_TIME + 31 * DAY * 1000 + 1000)).toBe(2);
    expect(await rejectionSeqs(storage, store.id)).toEqual([newest]);
  });

  it('prunes a large backlog in several journaled steps that a crash replays to the same rows', async () => {
    const dir = await tempDir();
    const storage = await open(dir, { maxPerStore: 10, maxAgeDays: 36_500 });
    const store = await withStore(storage);
    const total = PRUNE_CHUNK * 2 + 50;
    for (let i = 0; i < total; i += 2_000) {
      await storage.insertRejections(store.id, Array.from({ length: Math.min(2_000, total - i) }, () => makeRejection()));
    }
    const journalBefore = storage.journalBytes;
    expect(await storage.pruneRejections(now)).toBe(total - 10);
    // Three small records (two full chunks and the rest), not one per row.
    expect(storage.journalBytes - journalBefore).toBeLessThan(1_000);
    const kept = await rejectionSeqs(storage, store.id);
    expect(kept).toHaveLength(10);

    await storage.flush();
    const replayed = await open(await crashCopy(dir), { maxPerStore: 10, maxAgeDays: 36_500 });
    expect(await rejectionSeqs(replayed, store.id)).toEqual(kept);
    expect((await replayed.stats(store.id)).rejections).toBe(10);
  });

  it('applies each Store its own bounds', async () => {
    const dir = await tempDir();
    let strict = '';
    const storage = await openIn(dir, {
      rejectionRetention: { forStore: (store) => (store.id === strict ? { maxPerStore: 1, maxAgeDays: 30 } : { maxPerStore: 100, maxAgeDays: 30 }) },
    });
    opened.push(storage);
    const [a, b] = [await withStore(storage), await withStore(storage)];
    strict = a.id;
    for (const store of [a, b]) await storage.insertRejections(store.id, Array.from({ length: 4 }, () => makeRejection({ receivedAt: DAY * 30 })));
    expect(await storage.pruneRejections(now)).toBe(3);
    expect(await rejectionSeqs(storage, a.id)).toHaveLength(1);
    expect(await rejectionSeqs(storage, b.id)).toHaveLength(4);
  });
});

describe('retention of the logs of refused requests (sql.js)', () => {
  const refusal = (at: number, path: string) => ({
    at: new Date(at).toISOString(),
    lastAt: new Date(at).toISOString(),
    count: 1,
    method: 'POST',
    path,
    status: 401,
    code: 'unauthenticated',
    reason: 'The secret does not match.',
    keyId: null,
    client: '127.0.0.1',
    userAgent: null,
  });

  it('keeps the newest refusals up to the count and the age, per log, the service-wide one included, through a crash', async () => {
    const storage = await open(await tempDir());
    const store = await withStore(storage);
    const old = BASE_TIME;
    const recent = now - DAY * 1000;
    await storage.insertRefusals([
      ...Array.from({ length: 2 }, (_, i) => ({ ...refusal(old, `/old/${i}`), storeId: store.id })),
      ...Array.from({ length: 6 }, (_, i) => ({ ...refusal(recent, `/recent/${i}`), storeId: store.id })),
      ...Array.from({ length: 7 }, (_, i) => ({ ...refusal(recent, `/service/${i}`), storeId: null })),
    ]);
    await storage.pruneRefusals(now, { maxPerStore: 5, maxAgeDays: 30 });
    const paths = async (s: SqljsStorage, storeId: string | null) => (await s.listRefusals({ storeId, limit: 100 })).refusals.map((r) => r.path);
    expect(await paths(storage, store.id)).toEqual(['/recent/5', '/recent/4', '/recent/3', '/recent/2', '/recent/1']);
    expect(await paths(storage, null)).toHaveLength(5);
    const copy = await openIn(await crashCopy(storage.dataDir));
    opened.push(copy);
    expect(await paths(copy, store.id)).toEqual(await paths(storage, store.id));
  });
});
