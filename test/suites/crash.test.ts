import { describe, expect, it } from 'vitest';
import { runCrashSuite } from './crash/crash-suite';

// The fast subset of `npm run suite:crash`: fewer rounds and writers, one damage case of each kind (journal tail,
// whole snapshot, changed pages; the torn tail is also covered by test/service/durability.test.ts).
describe('crash suite (fast subset)', () => {
  it('keeps every acknowledged write through kill -9 rounds and damaged journal and snapshot files', async () => {
    const report = await runCrashSuite({ rounds: 2, writers: 8, seed: 20261121, killAfterMs: [150, 400], snapshotThresholdBytes: 64 * 1024, damageCases: 'fast' });
    expect(report.missing, report.summary).toEqual([]);
    expect(report.ok, report.summary).toBe(true);
    expect(report.statementsAcknowledged).toBeGreaterThan(0);
    expect(report.damage.map((d) => d.ok)).toEqual([true, true, true]);
  }, 90_000);
});
