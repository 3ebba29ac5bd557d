/**
 * Import jobs in storage, on both backends: kept whole, listed per Store newest first and, for
 * resuming, unfinished ones of every Store oldest first; still there after the data is opened again
 * (sql.js: replayed from the journal, without a snapshot); and the lease that lets one process of
 * several run a job (PostgreSQL).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { ImportJobRecord, Storage } from '../../src-server/storage/storage';
import { createTestDatabase, type TestDatabase } from '../postgres/test-database';
import { makeStore } from './rows';
import { crashCopy, removeTempDirs, tempDir } from './sqljs-helpers';

function job(storeId: string, n: number, overrides: Partial<ImportJobRecord> = {}): ImportJobRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    id: randomUUID(),
    storeId,
    kind: 'lrs',
    state: 'running',
    endpoint: 'https://lrs.example.com/xapi/',
    key: 'key',
    secret: 'secret',
    since: null,
    fileName: null,
    more: null,
    reached: null,
    counts: { read: 0, imported: 0, alreadyPresent: 0, voided: 0, invalid: 0, conflicts: 0 },
    problems: [],
    error: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    ...overrides,
  };
}

/** `reopen`: the data as a restarted service finds it, once `storage` is gone. */
async function keepsJobs(open: () => Promise<Storage>, reopen: (storage: Storage) => Promise<Storage>): Promise<void> {
  let storage = await open();
  const store = makeStore();
  const other = makeStore();
  await storage.insertStore(store);
  await storage.insertStore(other);
  const first = job(store.id, 1);
  const second = job(store.id, 2, { kind: 'ndjson', endpoint: null, key: null, secret: null, fileName: 'export.ndjson' });
  const elsewhere = job(other.id, 3);
  for (const j of [first, second, elsewhere]) await storage.putImportJob(j);
  // Progress replaces the job whole; the end drops its secret.
  const moved = { ...first, more: '/xapi/statements?more=abc', counts: { ...first.counts, read: 10, imported: 9, invalid: 1 }, problems: [{ kind: 'invalid' as const, statementId: 'x', message: 'bad' }] };
  await storage.putImportJob(moved);
  const ended = { ...second, state: 'finished' as const, finishedAt: second.updatedAt };
  await storage.putImportJob(ended);

  const check = async (s: Storage) => {
    expect(await s.findImportJob(store.id, first.id)).toEqual(moved);
    expect(await s.findImportJob(other.id, first.id)).toBeNull();
    expect((await s.listImportJobs({ storeId: store.id })).map((j) => j.id)).toEqual([second.id, first.id]);
    expect((await s.listImportJobs({ unfinished: true })).map((j) => j.id)).toEqual([first.id, elsewhere.id]);
  };
  await check(storage);
  storage = await reopen(storage);
  try {
    await check(storage);
  } finally {
    await storage.close();
  }
}

describe('import jobs on sql.js', () => {
  it('are kept, listed, and found again after a reopen (journal replay)', async () => {
    const dataDir = await tempDir();
    try {
      // What a kill -9 leaves: the journal as written, no snapshot taken at close.
      await keepsJobs(
        () => openSqljsStorage({ dataDir }),
        async (storage) => {
          const copy = await crashCopy(dataDir);
          await storage.close();
          return openSqljsStorage({ dataDir: copy });
        },
      );
    } finally {
      await removeTempDirs();
    }
  });

  it('need no lease: the one process owning the data directory runs them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lore-import-jobs-'));
    const storage = await openSqljsStorage({ dataDir });
    try {
      expect(await storage.claimImportJob('any', 'a', 30_000)).toBe(true);
      expect(await storage.claimImportJob('any', 'b', 30_000)).toBe(true);
    } finally {
      await storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('import jobs on PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: true });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('are kept, listed, and found again after a reopen', async () => {
    const open = () => openPostgresStorage({ url: db.url, poolSize: 2 });
    await keepsJobs(open, async (storage) => {
      await storage.close();
      return open();
    });
  });

  it('are run by one process at a time: a lease, renewed by its holder, taken over once it runs out', async () => {
    const a = await openPostgresStorage({ url: db.url, poolSize: 2 });
    const b = await openPostgresStorage({ url: db.url, poolSize: 2 });
    try {
      const store = makeStore();
      await a.insertStore(store);
      const j = job(store.id, 1);
      await a.putImportJob(j);
      expect(await a.claimImportJob(j.id, 'process-a', 30_000)).toBe(true);
      expect(await b.claimImportJob(j.id, 'process-b', 30_000)).toBe(false);
      expect(await a.claimImportJob(j.id, 'process-a', 30_000)).toBe(true); // renewed
      expect(await a.claimImportJob(j.id, 'process-a', 0)).toBe(true); // given up
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await b.claimImportJob(j.id, 'process-b', 50)).toBe(true);
      expect(await a.claimImportJob(j.id, 'process-a', 30_000)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 80)); // b died: its lease runs out
      expect(await a.claimImportJob(j.id, 'process-a', 30_000)).toBe(true);
      // Saving progress keeps the lease.
      await a.putImportJob({ ...j, counts: { ...j.counts, read: 3 } });
      expect(await b.claimImportJob(j.id, 'process-b', 30_000)).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
