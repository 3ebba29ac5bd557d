import { describe, expect, it } from 'vitest';
import { runHostileSuite } from './hostile/hostile-suite';

// The fast subset of `npm run suite:hostile`: the same generator, fewer requests, a fixed seed.
describe('hostile-input suite (fast subset)', () => {
  it('answers 1,000 generated bad requests below 500 and stays alive and bounded', async () => {
    const report = await runHostileSuite({ requests: 1000, seed: 20261121, concurrency: 6, rssGrowthLimitBytes: 384 * 1024 * 1024 });
    expect(report.serverErrors.map((f) => `#${f.index} ${f.request.method} ${f.request.path.slice(0, 120)}`), report.summary).toEqual([]);
    expect(report.hung, report.summary).toEqual([]);
    expect(report.aliveAfter, report.summary).toBe(true);
    expect(report.sent).toBe(1000);
    expect(report.ok, report.summary).toBe(true);
  }, 90_000);
});
