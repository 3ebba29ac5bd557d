/**
 * Keeps refused requests (http/plugins/refusal-log.ts decides which) in their logs without costing
 * the requests anything: `record` only adds to an in-memory buffer, and the buffer is written
 * through the Storage's normal write path at most once per `flushMs`, as one operation.
 *
 * The rate limiter or a misconfigured course can produce thousands of refusals a second, nearly
 * all alike. Identical refusals (same log, method, path, status, code, key, client, User-Agent)
 * waiting in one buffer become one entry with a count, so a flood costs one row per second per
 * distinct request, not one per request. The buffer holds at most `maxPending` distinct entries;
 * refusals beyond that are counted and reported in the service log, not stored.
 *
 * Writing never fails a request: a storage error (unavailable, full) drops that batch of the log,
 * which is logged once per failure.
 */
import type { RefusalRow, Storage } from '../storage/storage';
import type { LiveEventBus } from './live-events';

export interface RefusalRecorderOptions {
  /** Longest a refusal waits in memory before it is written. Default 1 s. */
  flushMs?: number;
  /** Distinct refusals the buffer holds at most. Default 1,000. */
  maxPending?: number;
  log?: (message: string) => void;
}

/** Where a refusal belongs: a Store's log (its id and slug) or the service-wide log (null). */
export type RefusalLogOwner = { id: string; slug: string } | null;

interface Pending {
  /** Found while the refusal waits (a Store lookup may be a database round trip); never rejects. */
  owner: Promise<RefusalLogOwner>;
  row: RefusalRow;
}

export class RefusalRecorder {
  private pending = new Map<string, Pending>();
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly flushMs: number;
  private readonly maxPending: number;
  private readonly log: (message: string) => void;

  constructor(
    private readonly storage: Storage,
    /** Where the console hears of each refusal logged. */
    private readonly events: LiveEventBus,
    options: RefusalRecorderOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 1000;
    this.maxPending = options.maxPending ?? 1000;
    this.log = options.log ?? (() => {});
  }

  /**
   * Adds one refusal (count 1) to the buffer; returns at once. The log it belongs in may still be
   * looked up (`owner` a promise): the refusal takes its place in the buffer now, so the logs keep the
   * order of the answers and a read right after the answer finds it. The owner follows from the
   * path and key id, so the row's fields alone tell identical refusals apart. A lookup that fails
   * puts the refusal in the service-wide log.
   */
  record(owner: RefusalLogOwner | Promise<RefusalLogOwner>, row: Omit<RefusalRow, 'count' | 'lastAt'>): void {
    const key = JSON.stringify([row.method, row.path, row.status, row.code, row.keyId, row.client, row.userAgent]);
    // Caught whether or not the refusal is kept (an identical one may already wait in the buffer).
    // Not logged one by one: a lookup fails when the storage does, and then so does the batch's
    // write, which is logged once.
    const found = Promise.resolve(owner).catch(() => null);
    const same = this.pending.get(key);
    if (same) {
      same.row.count += 1;
      same.row.lastAt = row.at;
    } else if (this.pending.size >= this.maxPending) {
      this.dropped += 1;
    } else {
      this.pending.set(key, { owner: found, row: { ...row, count: 1, lastAt: row.at } });
    }
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /**
   * Writes everything buffered so far; resolves once it is stored (or dropped for a storage
   * error). A read of a log calls it first, so the log shows every refusal answered before.
   */
  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    const dropped = this.dropped;
    this.pending = new Map();
    this.dropped = 0;
    // One write at a time, in order: the ids of the logs follow the order of the refusals.
    this.writing = this.writing.then(() => this.write(batch, dropped));
    return this.writing;
  }

  private async write(batch: Pending[], dropped: number): Promise<void> {
    if (dropped > 0) this.log(`${dropped} refused requests were not logged: more than ${this.maxPending} distinct ones arrived within ${this.flushMs} ms`);
    if (batch.length === 0) return;
    const owners = await Promise.all(batch.map(({ owner }) => owner));
    try {
      const stored = await this.storage.insertRefusals(batch.map(({ row }, i) => ({ ...row, storeId: owners[i]?.id ?? null })));
      const slugs = new Map(owners.map((owner) => [owner?.id ?? null, owner?.slug ?? null]));
      for (const refusal of stored) {
        this.events.publishRefusal({ store: slugs.get(refusal.storeId) ?? null, id: refusal.id, status: refusal.status, code: refusal.code, at: refusal.at });
      }
    } catch (error) {
      this.log(`${batch.length} refused requests could not be logged: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
