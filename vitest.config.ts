import { defineConfig } from 'vitest/config';

// CI (.ci/run) sets VITEST_JSON to a file path to get a machine-readable result beside the
// usual console output; it counts passed and failed tests from it.
const jsonReport = process.env['VITEST_JSON'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds out/ when its sources changed: tests that serve or run the built app find it fresh.
    globalSetup: ['test/global-setup.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Process-level tests spawn the real service; two cores leave no room for more parallel forks.
    maxWorkers: 2,
    ...(jsonReport ? { reporters: ['default', 'json'], outputFile: { json: jsonReport } } : {}),
  },
});
