/**
 * Before any test file: the web console and desktop bundles are built when their sources changed
 * (the same step `npm run serve` takes), so every test file finds what the service serves, whether
 * it runs alone, first, or in any order on a fresh clone. And a PostgreSQL server for the tests of
 * the PostgreSQL storage (test/postgres/test-server.ts), unless LRS_TEST_DATABASE_URL names one.
 */
import type { TestProject } from 'vitest/node';
import { buildIfStale } from '../scripts/build-if-stale.mjs';
import { startTestPostgres } from './postgres/test-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the tests' PostgreSQL server: tests create their own databases on it. */
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildIfStale({ log: () => {} });
  const given = process.env['LRS_TEST_DATABASE_URL'];
  if (given) {
    project.provide('postgresUrl', given);
    return async () => {};
  }
  const server = await startTestPostgres();
  project.provide('postgresUrl', server.url);
  return server.stop;
}
