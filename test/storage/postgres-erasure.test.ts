/** Forgetting a learner and a Store's retention on PostgreSQL: the contract sql.js passes too (erasure-contract.ts). */
import { afterEach, describe } from 'vitest';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { createTestDatabase } from '../postgres/test-database';
import { erasureContract } from './erasure-contract';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('erasure and retention on PostgreSQL', () => {
  erasureContract(async () => {
    const db = await createTestDatabase();
    cleanups.push(db.drop);
    const storage = await openPostgresStorage({ url: db.url, poolSize: 2 });
    cleanups.push(() => storage.close());
    return storage;
  });
});
