/**
 * The benchmark tells which scenarios ran while the service wrote a snapshot (scripts/bench/run.ts):
 * it reads the storage's own "snapshot written" lines, so the parser is checked against lines the
 * embedded storage really writes, both kinds (the whole image, then changed pages).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { overlapMs, snapshotIntervals } from '../../scripts/bench/processes';
import { closedAfterEach, removeTempDirs, twoSnapshotsLogged } from '../storage/sqljs-helpers';

const track = closedAfterEach();
afterAll(removeTempDirs);

describe("the benchmark's snapshot intervals", () => {
  it('reads both kinds of snapshot line the storage writes, each as its duration before the line', async () => {
    const messages = await twoSnapshotsLogged(track);
    const lines = messages.map((text, i) => ({ at: 10_000 + i * 1_000, text: `[lore] ${text}` }));
    const intervals = snapshotIntervals(lines);
    expect(intervals).toHaveLength(2);
    for (const [start, end] of intervals) {
      expect(end - start).toBeGreaterThanOrEqual(0);
      expect(end - start).toBeLessThan(60_000);
    }
    expect(snapshotIntervals([{ at: 5_000, text: 'snapshot written: 8 changed pages (32768 bytes) of 65536, journal seq 3, 1200 ms' }])).toEqual([[3_800, 5_000]]);
  });

  it('counts the part of a run that a snapshot covered, and nothing outside it', () => {
    const intervals: Array<[number, number]> = [
      [1_000, 2_000],
      [2_500, 6_000],
    ];
    expect(overlapMs(0, 900, intervals)).toBe(0);
    expect(overlapMs(1_500, 3_000, intervals)).toBe(1_000);
    expect(overlapMs(3_000, 4_000, intervals)).toBe(1_000);
    expect(overlapMs(0, 10_000, intervals)).toBe(4_500);
  });
});
