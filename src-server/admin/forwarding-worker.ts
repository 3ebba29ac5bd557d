/**
 * Delivers every forwarder's statements (docs/forwarding.md). One object per running service,
 * created and stopped by it: no module state. Per forwarder one loop at a time: read the next
 * batch after the cursor (or a dead letter queued again first), send it, and only once the
 * destination acknowledged it move the cursor in storage. So delivery is at least once and in
 * order, a crash loses nothing, and only the unacknowledged batch can arrive twice.
 *
 * It is woken, never polls busily: by what this process records (announceStatements), by what
 * other processes on the same database commit (the storage's change feed), by an admin's change,
 * by a batch's retry time, and by a slow timer that catches anything else.
 *
 * A write wakes its Store's forwarders by the list of them it last read, not by reading it again:
 * writes come hundreds of times a second and forwarders change rarely. An admin's change in this
 * process drops the Store's list (forwardersChanged); the slow timer drops every list, so that a
 * forwarder another process added is woken here too within idleMs (that process wakes it at once).
 */
import { randomUUID } from 'node:crypto';
import type { ForwardableStatement, ForwarderRecord } from '../storage/forwarders';
import type { Storage, StoreRecord } from '../storage/storage';
import { passesFilter, sendBatch } from './forwarding-delivery';
import type { ForwardingWake } from './forwarders';

export interface ForwardingTiming {
  /** The first retry's delay; each next one doubles, up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long a batch is retried from its first failure before it becomes a dead letter. */
  giveUpMs: number;
  /** The slow timer: every forwarder is looked at this often even when nothing woke it. */
  idleMs: number;
  /** How long a process holds a forwarder between batches (PostgreSQL, several processes). */
  leaseMs: number;
  /** How long the destination has to answer a batch; at most half the lease, so that a batch ends while its lease holds. */
  requestTimeoutMs: number;
}

const DEFAULT_FORWARDING_TIMING: ForwardingTiming = {
  retryBaseMs: 1_000,
  retryMaxMs: 10 * 60_000,
  giveUpMs: 24 * 60 * 60_000,
  idleMs: 30_000,
  leaseMs: 60_000,
  requestTimeoutMs: 30_000,
};

/** A batch holds up to this many statements, and up to MAX_BATCH_BYTES (at least one statement). */
const MAX_BATCH_STATEMENTS = 100;
const MAX_BATCH_BYTES = 1_000_000;
/** Statements read per query, and at most per batch (those the filter drops count too). */
const READ_ROWS = 200;
const MAX_SCANNED = 2_000;

interface Batch {
  statements: ForwardableStatement[];
  fromSeq: number;
  throughSeq: number;
  throughStored: string | null;
  deadLetterId?: number;
}

interface Runner {
  running: Promise<void> | null;
  again: boolean;
  timer: NodeJS.Timeout | null;
  /**
   * After a batch was refused whole, its statements go one by one up to this seq, so that only the
   * refused ones become dead letters. Kept in memory: after a restart the batch is refused and split again.
   */
  singlesThrough: number;
}

export interface ForwardingWorkerOptions {
  storage: Storage;
  log?: (message: string) => void;
  timing?: Partial<ForwardingTiming>;
}

export class ForwardingWorker implements ForwardingWake {
  private readonly storage: Storage;
  private readonly log: (message: string) => void;
  private readonly timing: ForwardingTiming;
  /** This process, as a lease owner. */
  private readonly owner = randomUUID();
  private readonly runners = new Map<string, Runner>();
  private readonly storesWaking = new Set<string>();
  /** Each Store's forwarder ids as last read (wakeStore); a Store not in it is read again. */
  private readonly storeForwarders = new Map<string, string[]>();
  /** Counts the times the lists were dropped: a list read across a drop may be stale, and is not kept. */
  private listsDropped = 0;
  private readonly abort = new AbortController();
  private idleTimer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private started = false;
  private stopped = false;

  constructor(options: ForwardingWorkerOptions) {
    this.storage = options.storage;
    this.log = options.log ?? (() => {});
    const timing = { ...DEFAULT_FORWARDING_TIMING, ...options.timing };
    this.timing = { ...timing, requestTimeoutMs: Math.min(timing.requestTimeoutMs, Math.floor(timing.leaseMs / 2)) };
  }

  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.unwatch = this.storage.watchChanges?.((change) => {
      if (change.kind === 'records') this.wakeStore(change.storeId);
    }) ?? null;
    this.idleTimer = setInterval(() => this.wakeAll(), this.timing.idleMs);
    this.idleTimer.unref();
    this.wakeAll();
  }

  /** Stops delivering: a batch in flight is abandoned unacknowledged (it is sent again later). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.unwatch?.();
    this.abort.abort();
    for (const runner of this.runners.values()) if (runner.timer) clearTimeout(runner.timer);
    await Promise.allSettled([...this.runners.values()].map((runner) => runner.running));
    if (this.storage.releaseForwarder) {
      await Promise.allSettled([...this.runners.keys()].map((id) => this.storage.releaseForwarder!(id, this.owner)));
    }
  }

  /** RecordedStatementListener: statements this process recorded wake the Store's forwarders. */
  announceStatements(store: StoreRecord): void {
    this.wakeStore(store.id);
  }

  announceRejections(): void {}

  /** An admin added or deleted one of the Store's forwarders: its list is read again at the next write. */
  forwardersChanged(storeId: string): void {
    this.storeForwarders.delete(storeId);
    this.listsDropped++;
  }

  wake(forwarderId: string): void {
    if (!this.started || this.stopped) return;
    let runner = this.runners.get(forwarderId);
    if (!runner) {
      runner = { running: null, again: false, timer: null, singlesThrough: 0 };
      this.runners.set(forwarderId, runner);
    }
    if (runner.running) {
      runner.again = true;
      return;
    }
    if (runner.timer) clearTimeout(runner.timer);
    runner.timer = null;
    const current = runner;
    current.running = this.run(forwarderId, current).finally(() => {
      current.running = null;
    });
  }

  private wakeStore(storeId: string): void {
    if (!this.started || this.stopped || this.storesWaking.has(storeId)) return;
    // A Store known to have no forwarder: nothing to wake.
    if (this.storeForwarders.get(storeId)?.length === 0) return;
    // Writes arriving together wake the Store once.
    this.storesWaking.add(storeId);
    setTimeout(() => {
      this.storesWaking.delete(storeId);
      if (this.stopped) return;
      void this.forwardersOf(storeId)
        .then((ids) => ids.forEach((id) => this.wake(id)))
        .catch((err: unknown) => this.failedToRead(err));
    }, 10);
  }

  /** The Store's forwarder ids: as last read, or read now and kept. */
  private async forwardersOf(storeId: string): Promise<string[]> {
    const known = this.storeForwarders.get(storeId);
    if (known) return known;
    const dropsBefore = this.listsDropped;
    const ids = (await this.storage.listForwarders(storeId)).map((record) => record.id);
    if (this.listsDropped === dropsBefore) this.storeForwarders.set(storeId, ids);
    return ids;
  }

  private wakeAll(): void {
    if (!this.started || this.stopped) return;
    this.storeForwarders.clear();
    this.listsDropped++;
    void this.storage
      .listForwarders()
      .then((records) => records.forEach((record) => this.wake(record.id)))
      .catch((err: unknown) => this.failedToRead(err));
  }

  private failedToRead(err: unknown): void {
    if (!this.stopped) this.log(`forwarding: could not read the forwarders: ${String(err)}`);
  }

  private async run(id: string, runner: Runner): Promise<void> {
    do {
      runner.again = false;
      try {
        await this.deliver(id, runner);
      } catch (err) {
        // The storage failed (unavailable, closing): the slow timer tries again.
        if (!this.stopped) this.log(`forwarding: forwarder ${id} stopped on a storage error: ${String(err)}`);
        return;
      }
    } while (runner.again && !this.stopped);
  }

  private later(id: string, runner: Runner, ms: number): void {
    if (runner.timer) clearTimeout(runner.timer);
    runner.timer = setTimeout(() => {
      runner.timer = null;
      this.wake(id);
    }, Math.max(0, ms));
    runner.timer.unref();
  }

  /** Delivers batches until there is nothing to send now. */
  private async deliver(id: string, runner: Runner): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const forwarder = await this.storage.findForwarder(id);
      if (!forwarder) {
        // Deleted: nothing of it is kept here either.
        if (runner.timer) clearTimeout(runner.timer);
        this.runners.delete(id);
        return;
      }
      if (forwarder.paused) return;
      const now = Date.now();
      if (forwarder.nextAttemptAt !== null && Date.parse(forwarder.nextAttemptAt) > now) {
        this.later(id, runner, Date.parse(forwarder.nextAttemptAt) - now);
        return;
      }
      // Several processes on one database: only the lease holder delivers this forwarder.
      // Another holds it: look again when its lease would have run out, had it died.
      if (this.storage.leaseForwarder && !(await this.storage.leaseForwarder(id, this.owner, this.timing.leaseMs))) {
        this.later(id, runner, this.timing.leaseMs);
        return;
      }
      const batch = await this.nextBatch(forwarder, runner);
      if (!batch) return;
      const lease = this.storage.leaseForwarder ? this.owner : undefined;
      const delivered = { outcome: 'delivered' as const, throughSeq: batch.throughSeq, throughStored: batch.throughStored, ...(batch.deadLetterId === undefined ? {} : { deadLetterId: batch.deadLetterId }) };
      if (batch.statements.length === 0) {
        // Everything read was filtered out: the cursor passes it.
        if (!(await this.storage.settleForwarderBatch(id, { ...delivered, at: new Date().toISOString() }, lease))) return;
        continue;
      }
      const outcome = await sendBatch(forwarder, batch.statements, { signal: this.abort.signal, timeoutMs: this.timing.requestTimeoutMs });
      if (this.stopped) return; // abandoned: not acknowledged, so sent again after the restart
      const at = new Date().toISOString();
      if (outcome.kind === 'delivered') {
        if (!(await this.storage.settleForwarderBatch(id, { ...delivered, at }, lease))) return;
        continue;
      }
      const error = { status: outcome.status, message: outcome.message, at };
      if (outcome.kind === 'refused' && batch.statements.length > 1) {
        // Find which statements are refused: the range goes again one statement at a time.
        runner.singlesThrough = batch.throughSeq;
        await this.storage.updateForwarder(id, { lastError: error });
        if (batch.deadLetterId === undefined) continue;
      }
      const failingSince = forwarder.failingSince ?? at;
      if (outcome.kind === 'refused' || Date.parse(at) - Date.parse(failingSince) >= this.timing.giveUpMs) {
        this.log(`forwarding: forwarder ${id} gave up on statements ${batch.fromSeq}..${batch.throughSeq}: ${outcome.message}`);
        const dead = {
          outcome: 'dead' as const,
          fromSeq: batch.fromSeq,
          throughSeq: batch.throughSeq,
          throughStored: batch.throughStored,
          statementIds: batch.statements.map((statement) => statement.statementId),
          error,
          at,
          ...(batch.deadLetterId === undefined ? {} : { deadLetterId: batch.deadLetterId }),
        };
        if (!(await this.storage.settleForwarderBatch(id, dead, lease))) return;
        continue;
      }
      const attempts = forwarder.attempts + 1;
      const delay = Math.min(this.timing.retryBaseMs * 2 ** Math.min(attempts - 1, 40), this.timing.retryMaxMs);
      const nextAttemptAt = new Date(Date.parse(at) + delay).toISOString();
      await this.storage.updateForwarder(id, { failingSince, attempts, nextAttemptAt, lastError: error });
      this.later(id, runner, delay);
      return;
    }
  }

  /** The next batch: a dead letter queued again first, else what follows the cursor; null: nothing. */
  private async nextBatch(forwarder: ForwarderRecord, runner: Runner): Promise<Batch | null> {
    const queued = (await this.storage.listDeadLetters(forwarder.id)).find((letter) => letter.queued);
    if (queued) {
      const rows = await this.storage.readForwardable(forwarder.storeId, { afterSeq: queued.fromSeq - 1, throughSeq: queued.throughSeq, limit: MAX_SCANNED });
      return {
        statements: rows.filter((row) => passesFilter(forwarder.filter, row)),
        fromSeq: queued.fromSeq,
        throughSeq: queued.throughSeq,
        throughStored: null,
        deadLetterId: queued.id,
      };
    }
    const max = runner.singlesThrough > forwarder.cursor ? 1 : MAX_BATCH_STATEMENTS;
    const statements: ForwardableStatement[] = [];
    let bytes = 0;
    let throughSeq = forwarder.cursor;
    let throughStored: string | null = null;
    let scanned = 0;
    reading: for (;;) {
      const rows = await this.storage.readForwardable(forwarder.storeId, { afterSeq: throughSeq, limit: READ_ROWS });
      if (rows.length === 0) break;
      for (const row of rows) {
        if (passesFilter(forwarder.filter, row)) {
          const size = Buffer.byteLength(row.statementJson);
          if (statements.length > 0 && bytes + size > MAX_BATCH_BYTES) break reading;
          statements.push(row);
          bytes += size;
        }
        throughSeq = row.seq;
        throughStored = row.stored;
        if (statements.length >= max || ++scanned >= MAX_SCANNED) break reading;
      }
    }
    return throughSeq === forwarder.cursor ? null : { statements, fromSeq: forwarder.cursor + 1, throughSeq, throughStored };
  }
}
