import { describe, expect, it } from 'vitest';
import { chartLayout, niceMax } from '../../src-renderer/features/ingestion/chart-layout';
import { rangeSince } from '../../src-renderer/features/ingestion/ingestion-range';

describe('ingestion chart layout', () => {
  it('rounds the axis up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 1, 3, 7, 12, 180, 1001].map(niceMax)).toEqual([5, 1, 5, 10, 20, 200, 2000]);
  });

  it('stacks rejected above accepted and scales the tallest bar to the axis', () => {
    const { bars, max } = chartLayout(
      [
        { start: 'a', accepted: 6, rejected: 4 },
        { start: 'b', accepted: 0, rejected: 0 },
      ],
      200,
      100,
    );
    expect(max).toBe(10);
    expect(bars[0]).toMatchObject({ acceptedY: 40, acceptedHeight: 60, rejectedY: 0, rejectedHeight: 40, total: 10 });
    expect(bars[1]).toMatchObject({ acceptedHeight: 0, rejectedHeight: 0 });
    expect(bars[1]!.x).toBeGreaterThan(bars[0]!.x + bars[0]!.width);
  });

  it('starts a range on a whole minute so that live refreshes ask the same question', () => {
    expect(rangeSince('1h', new Date('2026-11-21T12:34:56.789Z'))).toBe('2026-11-21T11:34:00.000Z');
  });
});
