/** The seq ranges the look for unannounced records reads (postgres/missed-records.ts). */
import { describe, expect, it } from 'vitest';
import { uncoveredRanges } from '../../src-server/storage/postgres/missed-records';

describe('uncoveredRanges', () => {
  it('gives the parts of a range no announced range holds, whatever their order and overlap', () => {
    expect(uncoveredRanges(1, 10, [])).toEqual([[1, 10]]);
    expect(uncoveredRanges(1, 10, [[1, 10]])).toEqual([]);
    expect(uncoveredRanges(1, 10, [[7, 8], [2, 3], [3, 4]])).toEqual([[1, 1], [5, 6], [9, 10]]);
    expect(uncoveredRanges(5, 10, [[1, 6], [9, 20]])).toEqual([[7, 8]]);
    expect(uncoveredRanges(5, 10, [[11, 12], [1, 2]])).toEqual([[5, 10]]);
    expect(uncoveredRanges(5, 5, [[5, 5]])).toEqual([]);
  });
});
