/**
 * Forwarding with several service processes on one PostgreSQL database: one process at a time
 * delivers a forwarder (its lease), so the receiver gets each statement once and in order with
 * two workers running; a process that died without giving the lease up holds it only until it
 * runs out.
 */
import { describe, expect, it } from 'vitest';
import { ForwardingWorker } from '../../src-server/admin/forwarding-worker';
import { newForwarderRecord, type ForwarderRecord } from '../../src-server/storage/forwarders';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { postgresPerTest } from '../postgres/per-test';
import { TestReceiver, waitFor } from '../forwarding/receiver';
import { makeStatement, makeStore } from './rows';

const SECRET = 'webhook-secret-0123456789';
const postgres = postgresPerTest();

async function setUp(): Promise<{ a: PostgresStorage; b: PostgresStorage; receiver: TestReceiver; forwarder: ForwarderRecord }> {
  const db = await postgres.database({ migrated: true });
  const a = await postgres.open(db, { poolSize: 4 });
  const b = await postgres.open(db, { poolSize: 4 });
  const receiver = new TestReceiver(SECRET);
  await receiver.up();
  postgres.afterThisTest(() => receiver.down());
  const store = makeStore();
  await a.insertStore(store);
  const forwarder = newForwarderRecord({
    id: 'f1', storeId: store.id, kind: 'webhook', url: receiver.url, username: null, secret: SECRET, filter: null, createdAt: new Date().toISOString(), cursor: 0,
  });
  await a.insertForwarder(forwarder);
  return { a, b, receiver, forwarder };
}

function worker(storage: PostgresStorage, leaseMs = 5_000): ForwardingWorker {
  const started = new ForwardingWorker({ storage, timing: { retryBaseMs: 20, retryMaxMs: 100, idleMs: 50, leaseMs } });
  started.start();
  postgres.afterThisTest(() => started.stop());
  return started;
}

describe('forwarding on PostgreSQL with several processes', () => {
  it('one process delivers a forwarder at a time: each statement once, in order', async () => {
    const { a, b, receiver, forwarder } = await setUp();
    worker(a);
    worker(b);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const rows = [makeStatement(), makeStatement()];
      // Written by either process: both wake, one delivers.
      await (i % 2 === 0 ? a : b).insertStatements(forwarder.storeId, rows);
      ids.push(...rows.map((row) => row.statementId));
    }
    await waitFor(() => receiver.ids.length >= 40, 'every statement');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.ids).toEqual(ids);
  });

  it('a lease left by a dead process runs out, and another process takes over', async () => {
    const { b, receiver, forwarder } = await setUp();
    expect(await b.leaseForwarder(forwarder.id, 'a process that died', 600)).toBe(true);
    const row = makeStatement();
    await b.insertStatements(forwarder.storeId, [row]);
    const startedAt = Date.now();
    worker(b);
    await waitFor(() => receiver.ids.length === 1, 'the statement after the lease ran out');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(400);
    expect(receiver.ids).toEqual([row.statementId]);
  });
});
