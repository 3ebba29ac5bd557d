/**
 * PostgreSQL storage under pressure: an exhausted pool and a statement past its timeout are
 * StorageUnavailableError (503 with Retry-After), within the bounds configured, never a hang.
 */
import { describe, expect, it } from 'vitest';
import { StorageUnavailableError } from '../../src-server/storage/storage';
import { postgresPerTest } from '../postgres/per-test';
import { makeStatement, makeStore } from './rows';

const postgres = postgresPerTest();
const open = postgres.openFresh;

describe('PostgreSQL storage under pressure', () => {
  it('answers unavailable when no connection frees up in time, and works again once one does', async () => {
    const storage = await open({ poolSize: 1, acquireTimeoutMs: 300 });
    const store = makeStore();
    await storage.insertStore(store);
    const held = await storage.db.pool.connect();
    const started = performance.now();
    await expect(storage.insertStatements(store.id, [makeStatement()])).rejects.toBeInstanceOf(StorageUnavailableError);
    await expect(storage.findStoreById(store.id)).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(performance.now() - started).toBeLessThan(3_000);
    held.release();
    const result = await storage.insertStatements(store.id, [makeStatement()]);
    expect(result.ok).toBe(true);
  });

  it('answers unavailable for a statement past the timeout, and nothing of its write stays', async () => {
    const storage = await open({ poolSize: 2, statementTimeoutMs: 1_000 });
    const store = makeStore();
    await storage.insertStore(store);
    const started = performance.now();
    await expect(storage.db.query('SELECT pg_sleep(5)')).rejects.toBeInstanceOf(StorageUnavailableError);
    expect(performance.now() - started).toBeLessThan(4_000);
    // A write held past the timeout inside its transaction (a lock another transaction holds).
    const blocker = await storage.db.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE statements IN EXCLUSIVE MODE');
    const row = makeStatement();
    await expect(storage.insertStatements(store.id, [row])).rejects.toBeInstanceOf(StorageUnavailableError);
    await blocker.query('ROLLBACK');
    blocker.release();
    expect(await storage.findStatement(store.id, row.statementId)).toBeNull();
    expect((await storage.insertStatements(store.id, [row])).ok).toBe(true);
  });
});
