import { describe, expect, it } from 'vitest';
import { StoredClock } from '../../src-server/lrs/stored-clock';

describe('StoredClock', () => {
  it('keeps the floor at the earliest stamp still in flight, and at now once every write is over', async () => {
    const clock = new StoredClock();
    const first = clock.stamp();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = clock.stamp();
    expect(second.at.getTime()).toBeGreaterThan(first.at.getTime());
    expect(clock.floorMs()).toBe(first.at.getTime());
    first.release();
    first.release(); // idempotent: the second stamp stays held
    expect(clock.floorMs()).toBe(second.at.getTime());
    second.release();
    const before = Date.now();
    expect(clock.floorMs()).toBeGreaterThanOrEqual(before);
  });

  it('counts two writes stamped in the same millisecond apart', () => {
    const clock = new StoredClock();
    const stamps = Array.from({ length: 5 }, () => clock.stamp());
    const earliest = stamps[0]!.at.getTime();
    for (const stamp of stamps.slice(0, 4)) stamp.release();
    expect(clock.floorMs()).toBeLessThanOrEqual(stamps[4]!.at.getTime());
    expect(clock.floorMs()).toBeGreaterThanOrEqual(earliest);
    stamps[4]!.release();
    expect(clock.floorMs()).toBeGreaterThanOrEqual(stamps[4]!.at.getTime());
  });
});
