import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../src-server/http/plugins/rate-limit';

function clock(start = 0) {
  const state = { now: start };
  return { now: () => state.now, advance: (ms: number) => (state.now += ms) };
}

describe('token buckets per API key', () => {
  it('lets a quiet key send a whole burst at once, then refuses with the seconds until the next token', () => {
    const time = clock();
    const buckets = new TokenBuckets(time.now);
    const policy = { perSecond: 2, burst: 5 };
    for (let i = 0; i < 5; i++) expect(buckets.take('k', policy)).toEqual({ ok: true });
    expect(buckets.take('k', policy)).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('refills at the rate: one token every 1/rate seconds, never more than the burst', () => {
    const time = clock();
    const buckets = new TokenBuckets(time.now);
    const policy = { perSecond: 4, burst: 2 };
    buckets.take('k', policy);
    buckets.take('k', policy);
    expect(buckets.take('k', policy).ok).toBe(false);
    time.advance(250);
    expect(buckets.take('k', policy).ok).toBe(true);
    expect(buckets.take('k', policy).ok).toBe(false);
    time.advance(60_000);
    expect(buckets.take('k', policy).ok).toBe(true);
    expect(buckets.take('k', policy).ok).toBe(true);
    expect(buckets.take('k', policy).ok).toBe(false);
  });

  it('says to wait several seconds when the rate is below one per second', () => {
    const time = clock();
    const buckets = new TokenBuckets(time.now);
    const policy = { perSecond: 0.2, burst: 1 };
    buckets.take('k', policy);
    expect(buckets.take('k', policy)).toEqual({ ok: false, retryAfterSeconds: 5 });
  });

  it('keeps keys apart: one key at its limit does not slow another', () => {
    const buckets = new TokenBuckets(clock().now);
    const policy = { perSecond: 1, burst: 1 };
    expect(buckets.take('a', policy).ok).toBe(true);
    expect(buckets.take('a', policy).ok).toBe(false);
    expect(buckets.take('b', policy).ok).toBe(true);
  });

  it('is off with a rate of 0', () => {
    const buckets = new TokenBuckets(clock().now);
    for (let i = 0; i < 100; i++) expect(buckets.take('k', { perSecond: 0, burst: 1 }).ok).toBe(true);
    expect(buckets.size).toBe(0);
  });

  it('forgets buckets that have refilled once many keys are known, so memory stays bounded', () => {
    const time = clock();
    const buckets = new TokenBuckets(time.now);
    const policy = { perSecond: 10, burst: 10 };
    for (let i = 0; i < 10_000; i++) buckets.take(`key-${i}`, policy);
    time.advance(1000);
    buckets.take('one more', policy);
    expect(buckets.size).toBe(1);
  });
});
