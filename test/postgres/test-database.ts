/**
 * A fresh, empty database on the tests' PostgreSQL (test-server.ts, started by the global setup,
 * or LRS_TEST_DATABASE_URL), one per caller, dropped when done.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

/** The server's admin URL, as the global setup provided it. */
export function testServerUrl(): string {
  return inject('postgresUrl');
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = testServerUrl();
  const name = `lore_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
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
