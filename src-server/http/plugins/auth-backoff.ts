/**
 * Backoff after failed credentials: after repeated 401s from one client address, that address's
 * failed attempts are answered 429 with a Retry-After that doubles with each further failure, up
 * to a cap. A pure module with an injected clock (milliseconds), table-tested.
 *
 * What a failure is counted against is the caller's choice (plugins/failed-credentials.ts): the client
 * address, never the key id. Key ids are public (every statement's `authority` carries one), so a
 * count per key id would let anyone lock a key's owner out with wrong secrets. And while an
 * address is blocked, credentials are still checked: the right ones pass. That lets a guesser
 * tell a right guess from a wrong one during a block, which costs nothing here: a secret is 256
 * random bits, beyond any guessing; what the block holds down is the noise and load of a client
 * stuck on wrong credentials, without ever stopping one with the right ones.
 */

export interface BackoffPolicy {
  /** Failures within `windowMs` that start the first block. */
  maxFailures: number;
  windowMs: number;
  /** The first block; each failure after a block (before `forgetAfterMs` of quiet) doubles it. */
  firstBlockMs: number;
  maxBlockMs: number;
  /** Quiet time after which an address starts over. */
  forgetAfterMs: number;
}

const DEFAULT_BACKOFF_POLICY: BackoffPolicy = {
  maxFailures: 10,
  windowMs: 60_000,
  firstBlockMs: 30_000,
  maxBlockMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

export type BackoffDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Entry {
  /** Failure times within the window, before the first block. */
  failures: number[];
  /** Blocks so far; from the first on, every failure blocks again, twice as long. */
  blocks: number;
  blockedUntil: number;
  lastFailureAt: number;
}

/** Most entries kept; beyond it the oldest are dropped (an attacker with many addresses cannot grow memory). */
const MAX_ENTRIES = 50_000;

export class AuthBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly policy: BackoffPolicy = DEFAULT_BACKOFF_POLICY,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `key` may try its credentials now. */
  check(key: string): BackoffDecision {
    const entry = this.current(key);
    if (!entry) return { ok: true };
    const wait = entry.blockedUntil - this.now();
    return wait > 0 ? { ok: false, retryAfterSeconds: Math.ceil(wait / 1000) } : { ok: true };
  }

  /** Records a refused credential; may start (or lengthen) a block. */
  fail(key: string): void {
    const now = this.now();
    const entry = this.current(key) ?? { failures: [], blocks: 0, blockedUntil: 0, lastFailureAt: now };
    entry.lastFailureAt = now;
    if (entry.blocks === 0) {
      entry.failures = entry.failures.filter((at) => now - at < this.policy.windowMs);
      entry.failures.push(now);
      if (entry.failures.length < this.policy.maxFailures) return this.keep(key, entry);
      entry.failures = [];
    }
    entry.blocks++;
    const blockMs = Math.min(this.policy.maxBlockMs, this.policy.firstBlockMs * 2 ** Math.min(entry.blocks - 1, 30));
    entry.blockedUntil = now + blockMs;
    this.keep(key, entry);
  }

  /** A credential was accepted: `key` starts over. */
  succeed(key: string): void {
    this.entries.delete(key);
  }

  /** How many addresses are remembered (for tests: memory stays bounded). */
  get size(): number {
    return this.entries.size;
  }

  private current(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && this.now() - Math.max(entry.lastFailureAt, entry.blockedUntil) >= this.policy.forgetAfterMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private keep(key: string, entry: Entry): void {
    // Re-inserted, so the map's order is oldest failure first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) {
      for (const oldest of this.entries.keys()) {
        this.entries.delete(oldest);
        if (this.entries.size <= MAX_ENTRIES * 0.9) break;
      }
    }
  }
}
