/**
 * A fresh database on the tests' PostgreSQL (test-server.ts, started by the global setup, or
 * LRS_TEST_DATABASE_URL), one per caller, dropped when done: empty, or already migrated.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { MIGRATIONS } from '../../src-server/storage/postgres/migrations';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

/** The server's admin URL, as the global setup provided it. */
function testServerUrl(): string {
  return inject('postgresUrl');
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The name of a database migrated by this code, kept on the server as a template: a copy of it
 * costs a third of creating and migrating a database (the HTTP suites make hundreds). Named by the
 * migrations' text, so a server kept between runs (LRS_TEST_DATABASE_URL) never serves an old schema.
 * Made once under an advisory lock: workers asking together wait for the first.
 */
async function migratedTemplate(admin: pg.Client, serverUrl: string): Promise<string> {
  const name = `lore_test_template_${createHash('sha256').update(MIGRATIONS.join('\0')).digest('hex').slice(0, 16)}`;
  await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      const building = `${name}_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${building}`);
      const storage = await openPostgresStorage({ url: databaseUrl(serverUrl, building), poolSize: 1 });
      await storage.close();
      await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [name]);
  }
  return name;
}

/**
 * `migrated`: a copy of a database the storage has opened once (the schema in place, no Store);
 * `tablespace`: its files kept there (a tablespace the caller made) instead of the server's own directory.
 */
export async function createTestDatabase(options: { migrated?: boolean; tablespace?: string } = {}): Promise<TestDatabase> {
  const serverUrl = testServerUrl();
  const name = `lore_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const template = options.migrated ? ` TEMPLATE ${await migratedTemplate(admin, serverUrl)} STRATEGY FILE_COPY` : '';
    const tablespace = options.tablespace ? ` TABLESPACE ${options.tablespace}` : '';
    await admin.query(`CREATE DATABASE ${name}${template}${tablespace}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(serverUrl, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
