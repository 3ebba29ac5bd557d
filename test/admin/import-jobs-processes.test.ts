/**
 * Several service processes on one PostgreSQL database (docs/import.md "Resuming"): each has its
 * ImportJobs, each looks for unfinished imports, and only the one holding a job's lease runs it.
 * When that one stops, another takes the import over and finishes it, with every statement once.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportJobs } from '../../src-server/admin/import-jobs';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import type { ImportJobRecord, Storage, StoreRecord } from '../../src-server/storage/storage';
import { buildTestApp, statement, type CreatedKey, type TestApp } from '../http/test-app';
import { createTestDatabase, type TestDatabase } from '../postgres/test-database';
import { makeStore } from '../storage/rows';

const STATEMENTS = 200;

let db: TestDatabase;
let source: TestApp;
let sourceKey: CreatedKey;
let endpoint: string;
const opened: Storage[] = [];
const workers: ImportJobs[] = [];

beforeEach(async () => {
  db = await createTestDatabase({ migrated: true });
  source = await buildTestApp();
  await source.app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = `http://127.0.0.1:${(source.app.server.address() as { port: number }).port}/origin/xapi/`;
  await source.createStore('origin');
  sourceKey = await source.createKey('origin');
  for (let batch = 0; batch < STATEMENTS / 50; batch++) {
    const response = await source.xapi(sourceKey, { method: 'POST', url: '/origin/xapi/statements', payload: Array.from({ length: 50 }, () => statement({ id: randomUUID() })) });
    expect(response.statusCode).toBe(200);
  }
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  for (const storage of opened.splice(0)) await storage.close();
  await source?.close();
  await db?.drop();
});

/** One process: its storage and its imports, started. */
async function process(logs: string[]): Promise<{ storage: Storage; jobs: ImportJobs }> {
  const storage = await openPostgresStorage({ url: db.url, poolSize: 2 });
  opened.push(storage);
  const jobs = new ImportJobs({
    storage,
    events: { announceStatements: () => {}, announceRejections: () => {} },
    publicUrl: () => 'http://127.0.0.1:8411',
    log: (message) => logs.push(message),
    pageSize: 5,
    pollMs: 50,
    leaseMs: 3_000,
  });
  workers.push(jobs);
  await jobs.start();
  return { storage, jobs };
}

describe('imports on PostgreSQL with several processes', () => {
  it('are run by one process at a time, and taken over by another when it stops', async () => {
    const aLogs: string[] = [];
    const bLogs: string[] = [];
    const a = await process(aLogs);
    const b = await process(bLogs);
    const store: StoreRecord = makeStore();
    await a.storage.insertStore(store);

    const started = await a.jobs.startPull(store, { endpoint, key: sourceKey.id, secret: sourceKey.secret });
    let seen: ImportJobRecord;
    for (;;) {
      seen = (await b.storage.findImportJob(store.id, started.id))!;
      if (seen.counts.read >= 40 || seen.state !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(seen.state).toBe('running');
    // Process b has looked for unfinished imports several times meanwhile, and left this one alone.
    expect(bLogs.filter((line) => line.includes('continuing'))).toEqual([]);

    await a.jobs.stop(); // paused, its lease given up
    const deadline = Date.now() + 20_000;
    let ended: ImportJobRecord;
    for (;;) {
      ended = (await b.storage.findImportJob(store.id, started.id))!;
      if (ended.state === 'finished' || ended.state === 'failed' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(ended.state, ended.error ?? '').toBe('finished');
    expect(bLogs.filter((line) => line.includes('continuing'))).toHaveLength(1);
    // Read once each, but for the page under way when a stopped: never two processes at once.
    expect(ended.counts.imported).toBe(STATEMENTS);
    expect(ended.counts.alreadyPresent).toBeLessThanOrEqual(5);
    const page = await b.storage.queryStatements(store.id, { ascending: true, limit: 500 });
    expect(new Set(page.statements.map((s) => s.statementId)).size).toBe(STATEMENTS);
  });
});
