/**
 * The console's counts on PostgreSQL (storage/postgres/ingestion.ts): each write appends rows, and
 * the fold replaces each key's rows by one — the current hour's and day's top lists included, so
 * steady writes do not pile up rows until the day ends; older periods only when it looks at every
 * period — and the report reads the same before and after.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { foldIngestionRows } from '../../src-server/storage/postgres/ingestion';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { createTestDatabase } from '../postgres/test-database';
import { BASE_TIME, makeStatement, makeStore } from './rows';

const HOUR_MS = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(): Promise<PostgresStorage> {
  const db = await createTestDatabase();
  cleanups.push(db.drop);
  // No fold on a timer: the test folds when it means to.
  const storage = await openPostgresStorage({ url: db.url, poolSize: 2, foldIntervalMs: 3_600_000 });
  cleanups.push(() => storage.close());
  return storage;
}

const topRows = async (storage: PostgresStorage) => Number((await storage.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingestion_top'))[0]!.n);

describe('console counts on PostgreSQL', () => {
  it('folds the top lists of the current hour and day to one row a key, and reports the same', async () => {
    const storage = await open();
    const store = makeStore();
    await storage.insertStore(store);
    // Statements stored now: the current hour and day, in twelve writes of two verbs and one course.
    const secondsNow = Math.floor((Date.now() - BASE_TIME) / 1000);
    for (let i = 0; i < 12; i++) {
      await storage.insertStatements(store.id, [
        makeStatement({ storedAt: secondsNow, verb: i % 2 === 0 ? 'http://adlnet.gov/expapi/verbs/completed' : 'http://adlnet.gov/expapi/verbs/attempted' }),
      ]);
    }
    const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const report = () =>
      storage.ingestionReport({ storeId: store.id, bucket: 'hour', since: new Date(hourStart - HOUR_MS).toISOString(), until: new Date(hourStart + HOUR_MS).toISOString(), top: 10 });
    const before = await report();
    expect(before.totals.accepted).toBe(12);
    expect(await topRows(storage)).toBe(48); // each write: its verb and its Activity, by hour and by day

    await foldIngestionRows(storage.db, 'recent');
    // Two verbs and one Activity, by hour and by day.
    expect(await topRows(storage)).toBe(6);
    expect(await report()).toEqual(before);
    await foldIngestionRows(storage.db, 'recent');
    expect(await topRows(storage)).toBe(6);
  });

  it('loses and doubles no count when writes append while it folds', async () => {
    const storage = await open();
    const store = makeStore();
    await storage.insertStore(store);
    const secondsNow = Math.floor((Date.now() - BASE_TIME) / 1000);
    const writes = Array.from({ length: 40 }, () => storage.insertStatements(store.id, [makeStatement({ storedAt: secondsNow })]));
    const folds = Array.from({ length: 4 }, (_, i) => new Promise((resolve) => setTimeout(resolve, i * 5)).then(() => foldIngestionRows(storage.db, 'recent')));
    await Promise.all([...writes, ...folds]);
    await foldIngestionRows(storage.db, 'recent');
    const hourStart = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const stats = await storage.ingestionReport({ storeId: store.id, bucket: 'hour', since: new Date(hourStart - HOUR_MS).toISOString(), until: new Date(hourStart + HOUR_MS).toISOString(), top: 10 });
    expect(stats.totals.accepted).toBe(40);
    expect(stats.topVerbs.map((v) => v.count)).toEqual([40]);
    expect(stats.topActivities.map((a) => a.count)).toEqual([40]);
    expect(await topRows(storage)).toBe(4);
  });

  it('leaves older periods to the fold of every period, which folds them and keeps their counts', async () => {
    const storage = await open();
    const store = makeStore();
    await storage.insertStore(store);
    // Three writes stored long before the recent periods (an hour and a minute of their own).
    for (let i = 0; i < 3; i++) await storage.insertStatements(store.id, [makeStatement({ storedAt: 10 })]);
    const minuteRows = async () => Number((await storage.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingestion_minutes'))[0]!.n);
    const report = () => storage.ingestionReport({ storeId: store.id, bucket: 'day', since: new Date(BASE_TIME - 86_400_000).toISOString(), until: new Date(BASE_TIME + 86_400_000).toISOString(), top: 10 });
    const before = await report();
    expect(before.totals.accepted).toBe(3);

    await foldIngestionRows(storage.db, 'recent');
    expect([await topRows(storage), await minuteRows()]).toEqual([12, 3]);
    await foldIngestionRows(storage.db, 'all');
    expect([await topRows(storage), await minuteRows()]).toEqual([4, 1]);
    expect(await report()).toEqual(before);
  });
});

