import { describe, expect, it } from 'vitest';
import type { RefusalPageView } from '../../src-server/admin/contract';
import { NO_REFUSALS_LOADED, withPage } from '../../src-renderer/features/refusals/refusal-pages';

const refusal = (id: number) => ({
  id,
  at: `2026-01-01T00:00:${String(id).padStart(2, '0')}.000Z`,
  lastAt: `2026-01-01T00:00:${String(id).padStart(2, '0')}.000Z`,
  count: 1,
  method: 'POST',
  path: '/course/xapi/statements',
  status: 401,
  code: 'unauthorized',
  reason: 'The key or its secret is wrong.',
  keyId: null,
  client: '127.0.0.1',
  userAgent: null,
});
/** A page as the service gives it: ids from `newest` down, `next` the oldest id when more remain. */
const pageOf = (newest: number, oldest: number, more: boolean): RefusalPageView => {
  const refusals = Array.from({ length: newest - oldest + 1 }, (_, i) => refusal(newest - i));
  return { refusals, next: more ? String(oldest) : null };
};
const ids = (loaded: { refusals: { id: number }[] }) => loaded.refusals.map((r) => r.id);

describe('the refused requests a log view has loaded', () => {
  it('shows the first page and where the older ones start', () => {
    const loaded = withPage(NO_REFUSALS_LOADED, pageOf(30, 26, true));
    expect(ids(loaded)).toEqual([30, 29, 28, 27, 26]);
    expect(loaded.next).toBe('26');
  });

  it('appends an older page and knows when the log has nothing older', () => {
    const loaded = withPage(withPage(NO_REFUSALS_LOADED, pageOf(30, 26, true)), pageOf(25, 24, false));
    expect(ids(loaded)).toEqual([30, 29, 28, 27, 26, 25, 24]);
    expect(loaded.next).toBeNull();
  });

  it('keeps rows a newer first page pushed past its end, and the cursor below the oldest shown', () => {
    const withOlder = withPage(withPage(NO_REFUSALS_LOADED, pageOf(30, 26, true)), pageOf(25, 21, true));
    const afterNewOnes = withPage(withOlder, pageOf(33, 29, true));
    expect(ids(afterNewOnes)).toEqual([33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21]);
    expect(afterNewOnes.next).toBe('21');
  });

  it('does not offer older rows that a shifted first page merely points at', () => {
    // The whole log was on one page; one new refusal pushes the oldest past the first page's end.
    const whole = withPage(NO_REFUSALS_LOADED, pageOf(5, 1, false));
    const shifted = withPage(whole, pageOf(6, 2, true));
    expect(ids(shifted)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(shifted.next).toBeNull();
  });

  it('shows a row once when pages overlap', () => {
    const loaded = withPage(withPage(NO_REFUSALS_LOADED, pageOf(10, 6, true)), pageOf(8, 4, true));
    expect(ids(loaded)).toEqual([10, 9, 8, 7, 6, 5, 4]);
    expect(loaded.next).toBe('4');
  });
});
