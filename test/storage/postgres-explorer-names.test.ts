/**
 * PostgreSQL specifics of the Explorer's names: the migration that creates them fills them from
 * the statements and definitions a database already holds.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src-server/storage/postgres/migrations';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { createTestDatabase } from '../postgres/test-database';
import type { TestDatabase } from '../postgres/test-database';
import { namedStatementLookups, namedStatements } from './explorer-names-contract';
import { makeStore } from './rows';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase({ migrated: true });
});

afterAll(async () => {
  await db?.drop();
});

describe('PostgreSQL names for the Explorer', () => {
  it('fills them, when migrating a database written before they were kept, from what it holds', async () => {
    let storage = await openPostgresStorage({ url: db.url, poolSize: 2 });
    const store = makeStore();
    await storage.insertStore(store);
    await storage.insertStatements(store.id, namedStatements());
    const expected = await namedStatementLookups(storage, store.id);
    expect(expected.map((names) => names.length)).toEqual([1, 1, 1, 1]);
    await storage.close();

    // The database as the release before them left it: the migration that made them not applied,
    // and each later one taken back too: the tables they create dropped, and what the erasure
    // migration added to existing tables removed.
    const version = MIGRATIONS.findIndex((sql) => sql.includes('CREATE TABLE explorer_names')) + 1;
    expect(version).toBeGreaterThan(0);
    const later = MIGRATIONS.slice(version).flatMap((sql) => [...sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)/g)].map((match) => match[1]!));
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(`DROP TABLE ${['explorer_names', 'explorer_name_words', ...later].join(', ')} CASCADE`);
      await client.query('DROP INDEX IF EXISTS statements_received; ALTER TABLE stores DROP COLUMN IF EXISTS retention');
      await client.query('DELETE FROM lore_schema WHERE version >= $1', [version]);
    } finally {
      await client.end();
    }

    storage = await openPostgresStorage({ url: db.url, poolSize: 2 });
    try {
      expect(await namedStatementLookups(storage, store.id)).toEqual(expected);
    } finally {
      await storage.close();
    }
  });
});
