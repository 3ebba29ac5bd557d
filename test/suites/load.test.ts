import { describe, expect, it } from 'vitest';
import { runLoadSuite } from './load/load-suite';

// The fast subset of `npm run suite:load`: the same 200 learners for 15 s, with shorter think
// times so that most sessions reach their end (answers, completion, the registration's
// statements), yet the class stays under the default rate limit of its one key (200/s, bursts of
// 2,000), as a real class does.
describe('load suite (fast subset)', () => {
  it('serves a class of 200 learners taking a course without a single error', async () => {
    const report = await runLoadSuite({ learners: 200, durationMs: 15_000, burst: false, seed: 20261121, thinkMs: [500, 2000] });
    expect(report.errorSamples, report.summary).toEqual([]);
    expect(report.errors, report.summary).toBe(0);
    expect(report.statements).toBeGreaterThan(200);
  }, 90_000);
});
