/**
 * PostgreSQL for the tests of one file: fresh databases (test-database.ts) and storages opened on
 * them, each closed or dropped after its test in the reverse order it was made (a storage before
 * its database), with anything else a test hands to `afterThisTest`. Call once at the file's top:
 * it registers the file's afterEach.
 */
import { afterEach } from 'vitest';
import { openPostgresStorage, type PostgresStorage, type PostgresStorageOptions } from '../../src-server/storage/postgres/postgres-storage';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface PostgresPerTest {
  /** A fresh database, empty or (`migrated`) with the schema in place. */
  database(options?: { migrated?: boolean }): Promise<TestDatabase>;
  /** A storage (a service process's) on `db`. */
  open(db: TestDatabase, options?: Partial<PostgresStorageOptions>): Promise<PostgresStorage>;
  /** A storage on a fresh database of its own. */
  openFresh(options?: Partial<PostgresStorageOptions>): Promise<PostgresStorage>;
  afterThisTest(cleanup: () => Promise<void>): void;
}

export function postgresPerTest(): PostgresPerTest {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const afterThisTest = (cleanup: () => Promise<void>) => void cleanups.push(cleanup);
  const database = async (options: { migrated?: boolean } = {}) => {
    const db = await createTestDatabase(options);
    afterThisTest(db.drop);
    return db;
  };
  const open = async (db: TestDatabase, options: Partial<PostgresStorageOptions> = {}) => {
    const storage = await openPostgresStorage({ url: db.url, ...options });
    afterThisTest(() => storage.close());
    return storage;
  };
  return { database, open, openFresh: async (options) => open(await database(), options), afterThisTest };
}
