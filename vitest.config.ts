import { defineConfig } from 'vitest/config';

// CI (.ci/run) sets VITEST_JSON to a file path to get a machine-readable result beside the
// usual console output; it counts passed and failed tests from it.
const jsonReport = process.env['VITEST_JSON'];

/** What every project shares. Projects do not `extends` the root: that would run the global setup once more per project. */
const projectDefaults = {
  environment: 'node',
  testTimeout: 20_000,
  hookTimeout: 30_000,
} as const;

/**
 * The HTTP suites whose storage comes from test/http/test-app.ts, run a second time on PostgreSQL
 * (LORE_TEST_STORAGE=postgres): the same requests get the same answers on both backends
 * (docs/postgres.md). The others stay on sql.js alone, as what they test is not the storage's:
 * - admin-explorer-received: reads the `received` columns of a sql.js snapshot file (the storage
 *   contract checks the received form on both);
 * - admin-web-console: the console's files;
 * - admin-service-status, limits-auth-backoff, limits-json-scan, limits-rate-limit: the real
 *   service on a data directory, or no storage at all.
 */
const httpOnPostgres = [
  'admin-api',
  'admin-erasures',
  'admin-audit',
  'admin-export',
  'data-round-trip',
  'bench',
  'admin-console',
  'admin-explorer-search',
  'admin-events',
  'admin-guard',
  'forwarding',
  'admin-imports',
  'limits-requests',
  'limits-store-overrides',
  'limits-streaming',
  'refusal-log',
  'statements-alternate-syntax',
  'statements-attachments',
  'statements-cors',
  'statements-query',
  'statements-versioning',
  'url-normalisation',
  'xapi-about',
  'xapi-activities',
  'xapi-agents',
  'xapi-auth',
  'xapi-documents',
  'xapi-statements',
].map((name) => `test/http/${name}.test.ts`);

export default defineConfig({
  test: {
    // Builds out/ when its sources changed: tests that serve or run the built app find it fresh.
    // Also starts the tests' PostgreSQL; every project reads its URL.
    globalSetup: ['test/global-setup.ts'],
    // Process-level tests spawn the real service; two cores leave no room for more parallel forks.
    maxWorkers: 2,
    ...(jsonReport ? { reporters: ['default', 'json'], outputFile: { json: jsonReport } } : {}),
    projects: [
      { test: { ...projectDefaults, name: 'sqljs', include: ['test/**/*.test.ts'] } },
      {
        test: {
          ...projectDefaults,
          name: 'http-postgres',
          include: httpOnPostgres,
          env: { LORE_TEST_STORAGE: 'postgres' },
        },
      },
    ],
  },
});
