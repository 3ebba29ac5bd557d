/**
 * Requests per second per API key: one token bucket per key, in memory. A pure module with an
 * injected clock (times in milliseconds), so its arithmetic is tested without waiting.
 *
 * A bucket holds up to `burst` tokens and refills at `perSecond`; each request takes one. A key
 * that finds its bucket empty is told how long until the next token: Retry-After in whole seconds.
 * In memory on purpose: a limit per process is what protects the process, and a scale-out
 * deployment puts its shared limit in front of the processes (a proxy), not in the database.
 */

export interface RatePolicy {
  /** Tokens added per second; 0 turns the limit off. */
  perSecond: number;
  /** Most tokens a bucket holds: the requests a quiet key may send at once. */
  burst: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
  /** When the bucket is full again if left alone: from then on, forgetting it changes nothing. */
  fullAt: number;
}

/** Buckets of keys idle long enough to be full again are dropped once the map holds this many. */
const SWEEP_AT = 10_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Takes one token from `key`'s bucket under `policy`, or says when the next one comes. */
  take(key: string, policy: RatePolicy): RateDecision {
    if (policy.perSecond <= 0) return { ok: true };
    const now = this.now();
    const bucket = this.buckets.get(key);
    let tokens = policy.burst;
    if (bucket) {
      const elapsed = Math.max(0, now - bucket.at);
      tokens = Math.min(policy.burst, bucket.tokens + (elapsed * policy.perSecond) / 1000);
    } else if (this.buckets.size >= SWEEP_AT) {
      this.sweep(now);
    }
    const left = tokens >= 1 ? tokens - 1 : tokens;
    this.buckets.set(key, { tokens: left, at: now, fullAt: now + ((policy.burst - left) * 1000) / policy.perSecond });
    if (tokens >= 1) return { ok: true };
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / policy.perSecond)) };
  }

  /** How many keys have a bucket (for tests: memory stays bounded). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.fullAt <= now) this.buckets.delete(key);
    }
  }
}
