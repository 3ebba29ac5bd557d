import { describe, expect, it } from 'vitest';
import { runIsolationSuite } from './isolation/isolation-suite';

// `npm run suite:isolation` in full: it is fast enough to run whole.
describe('isolation suite', () => {
  it('lets no key of one Store read or write another Store, and refuses revoked and expired keys at once', async () => {
    const report = await runIsolationSuite();
    expect(report.leaks, report.summary).toEqual([]);
    expect(report.probes).toBeGreaterThan(300);
  }, 90_000);
});
