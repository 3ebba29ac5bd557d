/**
 * The console's counts on PostgreSQL (storage/postgres/ingestion.ts): each write appends rows, and
 * the fold replaces each key's rows by one — the current hour's and day's top lists included, so
 * steady writes do not pile up rows until the day ends; older periods only when it looks at every
 * period — and the report reads the same before and after. The fold also keeps each Store's total
 * of the minutes it has passed, which the statement count reads instead of every minute.
 */
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { foldIngestionRows } from '../../src-server/storage/postgres/ingestion';
import { MIGRATIONS } from '../../src-server/storage/postgres/migrations';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { postgresPerTest } from '../postgres/per-test';
import { BASE_TIME, makeStatement, makeStore } from './rows';

const HOUR_MS = 3_600_000;
const postgres = postgresPerTest();

// No fold on a timer: the test folds when it means to.
const open = () => postgres.openFresh({ poolSize: 2, foldIntervalMs: 3_600_000 });

const MINUTE_MS = 60_000;
const secondsNow = () => Math.floor((Date.now() - BASE_TIME) / 1000);
const statementCount = async (storage: PostgresStorage, storeId?: string) => (await storage.stats(storeId)).statements;
const totals = (storage: PostgresStorage) =>
  storage.db.query<{ through: number; accepted: number }>('SELECT through_minute::float8 AS through, accepted::int AS accepted FROM ingestion_totals ORDER BY store_num');

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

  it("counts a Store's statements from its total and its minutes since, and sums them again in the fold of every period", async () => {
    const storage = await open();
    const [a, b] = [makeStore(), makeStore()];
    await storage.insertStore(a);
    await storage.insertStore(b);
    // Long ago (each statement its own minute) and now.
    for (let i = 0; i < 4; i++) await storage.insertStatements(a.id, [makeStatement({ storedAt: i * 60 }), makeStatement({ storedAt: i * 60 })]);
    await storage.insertStatements(b.id, [makeStatement({ storedAt: 30 })]);
    await storage.insertStatements(a.id, [makeStatement({ storedAt: secondsNow() })]);
    const counts = async () => [await statementCount(storage, a.id), await statementCount(storage, b.id), await statementCount(storage)];
    expect(await counts()).toEqual([9, 1, 10]);
    expect(await totals(storage)).toEqual([]);

    await foldIngestionRows(storage.db, 'recent');
    const through = Math.floor(Date.now() / MINUTE_MS) - 60;
    expect((await totals(storage)).map((t) => t.accepted)).toEqual([8, 1]);
    expect((await totals(storage)).every((t) => Math.abs(t.through - through) <= 1)).toBe(true);
    expect(await counts()).toEqual([9, 1, 10]);
    await storage.insertStatements(a.id, [makeStatement({ storedAt: secondsNow() })]);
    await foldIngestionRows(storage.db, 'recent');
    expect(await counts()).toEqual([10, 1, 11]);

    // A statement stored long ago (an import keeps the source's `stored`), behind b's total: the
    // write drops that total, so the count reads all of b's minutes until a fold sums them again.
    await storage.insertStatements(b.id, [makeStatement({ storedAt: 600 })]);
    expect(await counts()).toEqual([10, 2, 12]);
    expect((await totals(storage)).map((t) => t.accepted)).toEqual([8]);
    await foldIngestionRows(storage.db, 'recent');
    expect((await totals(storage)).map((t) => t.accepted)).toEqual([8, 2]);
    expect(await counts()).toEqual([10, 2, 12]);
    await foldIngestionRows(storage.db, 'all');
    expect(await counts()).toEqual([10, 2, 12]);
    expect((await totals(storage)).map((t) => t.accepted)).toEqual([8, 2]);

    await storage.emptyStore(a.id);
    expect(await counts()).toEqual([0, 2, 2]);
    await foldIngestionRows(storage.db, 'recent');
    expect(await counts()).toEqual([0, 2, 2]);
  });

  it('never empties a Store during a fold: the emptying waits for the fold, and a fold skips its turn during an emptying', async () => {
    const db = await postgres.database();
    const storage = await postgres.open(db, { poolSize: 2, foldIntervalMs: 3_600_000 });
    const store = makeStore();
    await storage.insertStore(store);
    await storage.insertStatements(store.id, [makeStatement({ storedAt: 0 }), makeStatement({ storedAt: 0 })]);
    await foldIngestionRows(storage.db, 'recent');
    expect(await statementCount(storage, store.id)).toBe(2);

    // A fold under way in another process: it holds the fold's lock until its transaction ends.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    postgres.afterThisTest(() => other.end());
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1, $2)', [0x4c6f7265, 2]);
    let emptied = false;
    const emptying = storage.emptyStore(store.id).then(() => (emptied = true));
    // The emptying waits on that lock (seen by the server), and has not happened.
    const waitingOnTheLock = async () =>
      Number(
        (await other.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`))
          .rows[0].n,
      );
    for (let tries = 0; (await waitingOnTheLock()) === 0; tries++) {
      expect(tries).toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(emptied).toBe(false);
    expect(await statementCount(storage, store.id)).toBe(2);
    await other.query('COMMIT');
    await emptying;
    expect(await statementCount(storage, store.id)).toBe(0);

    // An emptying under way holds the lock: a fold then changes nothing.
    for (let i = 0; i < 2; i++) await storage.insertStatements(store.id, [makeStatement({ storedAt: 0 })]);
    const minuteRows = async () => Number((await storage.db.query<{ n: number }>('SELECT count(*)::int AS n FROM ingestion_minutes'))[0]!.n);
    expect(await minuteRows()).toBe(2);
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1, $2)', [0x4c6f7265, 2]);
    await foldIngestionRows(storage.db, 'all');
    expect(await minuteRows()).toBe(2);
    await other.query('COMMIT');
    await foldIngestionRows(storage.db, 'all');
    expect(await minuteRows()).toBe(1);
  });

  it('keeps a write whose Store total could not be dropped, and logs why', async () => {
    const db = await postgres.database();
    const logged: string[] = [];
    const storage = await postgres.open(db, { poolSize: 2, foldIntervalMs: 3_600_000, statementTimeoutMs: 1_000, log: (line) => logged.push(line) });
    const store = makeStore();
    await storage.insertStore(store);
    // A fold that does not end: dropping the total waits for its lock past the statement timeout.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    postgres.afterThisTest(() => other.end());
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1, $2)', [0x4c6f7265, 2]);
    const old = makeStatement({ storedAt: 0 });
    const result = await storage.insertStatements(store.id, [old]);
    expect(result).toEqual({ ok: true, inserted: [old.statementId], unchanged: [] });
    expect(logged.some((line) => line.includes('could not drop the statement total of a Store'))).toBe(true);
    await other.query('COMMIT');
    expect(await storage.findStatement(store.id, old.statementId)).not.toBeNull();
    expect(await statementCount(storage, store.id)).toBe(1);
  });

  it('fills the totals when the migration that made them runs on a database with history', async () => {
    const db = await postgres.database();
    const first = await postgres.open(db, { poolSize: 2, foldIntervalMs: 3_600_000 });
    const store = makeStore();
    await first.insertStore(store);
    await first.insertStatements(store.id, [makeStatement({ storedAt: 0 }), makeStatement({ storedAt: 60 }), makeStatement({ storedAt: secondsNow() })]);
    await first.close();
    // The database as the release before the totals left it.
    const version = MIGRATIONS.findIndex((migration) => migration.includes('CREATE TABLE IF NOT EXISTS ingestion_totals')) + 1;
    expect(version).toBeGreaterThan(0);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    postgres.afterThisTest(() => admin.end());
    await admin.query('DROP TABLE ingestion_totals');
    await admin.query('DELETE FROM lore_schema WHERE version >= $1', [version]);

    const storage = await postgres.open(db, { poolSize: 2, foldIntervalMs: 3_600_000 });
    expect((await totals(storage)).map((t) => t.accepted)).toEqual([2]);
    expect(await statementCount(storage, store.id)).toBe(3);
  });
});
