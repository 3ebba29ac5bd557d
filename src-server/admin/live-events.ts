/**
 * Live events: every statement accepted, voided or rejected, as it is recorded, for the admin
 * API's event stream (GET /admin/api/events) and through it the console.
 *
 * One bus per service, made by buildServer and handed to what publishes and what subscribes (so
 * two services in one process, as in tests, never see each other's events). The write path
 * (lrs/statement-writes.ts) calls `announce*` after its write resolved; they return at once. When
 * nobody listens they do nothing at all. Changes other processes commit to a shared database
 * (Storage.watchChanges) are relayed too.
 *
 * Two kinds of statement news, because watching must not cost ingestion:
 * - `change`, what the console listens to: per Store, which Store changed, up to which seq and how
 *   many statements, coalesced over `coalesceMs` (a few messages a second under any load, one
 *   storage read per Store and flush, whatever the number of statements);
 * - `statement`, one event per statement (its id and status), for tools that ask for them
 *   (`?detail=statements`): its few reads run only while such a stream is open.
 * Each event is serialised once, as the server-sent-event frame every stream writes as it is.
 */
import { EventEmitter } from 'node:events';
import type { RejectionRow, Storage, StorageChange, StoreRecord } from '../storage/storage';
import type { LiveEventView, RefusalEventView, StoreChangeView } from './contract';

/** An event with its server-sent-event frame (`event:`, `id:`, `data:` lines), made once for every stream. */
export interface EventFrame<T> {
  view: T;
  frame: string;
}

interface FrameViews {
  statement: LiveEventView;
  change: StoreChangeView;
  refusal: RefusalEventView;
}
type FrameKind = keyof FrameViews;

/** How long statement news is gathered into one `change` message per Store. */
const COALESCE_MS = 250;

function frameOf<T>(kind: FrameKind, view: T, id?: number): EventFrame<T> {
  return { view, frame: `event: ${kind}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(view)}\n\n` };
}

/** The `change` frame of a Store; `count` null when not counted (a resumed stream). */
export function changeFrame(change: StoreChangeView): EventFrame<StoreChangeView> {
  return frameOf('change', change, change.toSeq);
}

interface PendingChange {
  store: Pick<StoreRecord, 'id' | 'slug'>;
  count: number;
  /** The highest seq known from the news itself (other processes' changes carry it). */
  toSeq: number;
}

export class LiveEventBus {
  private readonly emitter = new EventEmitter();
  private readonly stopWatching: () => void;
  private readonly coalesceMs: number;
  private readonly pending = new Map<string, PendingChange>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /**
   * The per-statement events' read-backs, one after another: each reads the storage, and reads of
   * different kinds take different times (on PostgreSQL a statement's read waits for the settled
   * seq), so run side by side a rejection could be published before a statement accepted earlier.
   */
  private readBacks: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    options: { coalesceMs?: number } = {},
  ) {
    this.coalesceMs = options.coalesceMs ?? COALESCE_MS;
    // Every open console stream is a listener; the stream route bounds what each one may buffer.
    this.emitter.setMaxListeners(0);
    // What other service processes on the same database record shows here too (PostgreSQL).
    this.stopWatching = storage.watchChanges?.((change) => this.later(() => this.relayChange(change))) ?? (() => {});
  }

  private listeners(kind: FrameKind): number {
    return this.emitter.listenerCount(kind);
  }

  /** Live-event streams open now: each listens for changes once. */
  get streams(): number {
    return this.listeners('change');
  }

  get listening(): boolean {
    return this.listeners('statement') + this.listeners('change') + this.listeners('refusal') > 0;
  }

  publish(event: LiveEventView): void {
    if (this.listeners('statement') > 0) this.emitter.emit('statement', frameOf('statement', event, event.seq));
  }

  /** A refused request was logged (refusal-recorder.ts); nothing happens when nobody listens. */
  publishRefusal(event: RefusalEventView): void {
    if (this.listeners('refusal') > 0) this.emitter.emit('refusal', frameOf('refusal', event));
  }

  /** Frames of one kind as they are published; returns the unsubscribe function. */
  subscribeFrames<K extends FrameKind>(
    kind: K,
    listener: (frame: EventFrame<FrameViews[K]>) => void,
  ): () => void {
    // One throwing listener must not keep the others from their events.
    const safe = (frame: EventFrame<FrameViews[K]>) => {
      try {
        listener(frame);
      } catch {
        // the listener's own problem
      }
    };
    this.emitter.on(kind, safe);
    return () => this.emitter.off(kind, safe);
  }

  /** Stops relaying other processes' changes and drops news not sent yet (the service is closing). */
  dispose(): void {
    this.stopWatching();
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.pending.clear();
  }

  /**
   * Statements a write inserted (`inserted`: their ids; the rows that came back unchanged are not
   * news). A voiding statement also announces its target, now voided.
   */
  announceStatements(store: StoreRecord, rows: ReadonlyArray<{ statementId: string; voidsStatementId: string | null }>, inserted: readonly string[]): void {
    if (inserted.length === 0) return;
    this.noteChange(store, inserted.length, 0);
    if (this.listeners('statement') === 0) return;
    this.later(async () => {
      const fresh = new Set(inserted);
      for (const row of rows) {
        if (!fresh.has(row.statementId)) continue;
        const stored = await this.storage.findStatement(store.id, row.statementId);
        if (stored) {
          this.publish({ store: store.slug, seq: stored.seq, status: stored.voided ? 'voided' : 'accepted', statementId: stored.statementId, receivedAt: stored.stored });
        }
        if (row.voidsStatementId === null) continue;
        const target = await this.storage.findStatement(store.id, row.voidsStatementId);
        if (target?.voided) this.publish({ store: store.slug, seq: target.seq, status: 'voided', statementId: target.statementId, receivedAt: target.stored });
      }
    });
  }

  /**
   * Statements a write refused and kept as rejections. Their seq is read back from the Explorer:
   * the newest rejections of the same key at the same receipt time (best effort if the same key
   * sent two refused requests in the same millisecond: the seqs may be swapped between them).
   */
  announceRejections(store: StoreRecord, rows: readonly RejectionRow[]): void {
    if (rows.length === 0) return;
    this.noteChange(store, rows.length, 0);
    if (this.listeners('statement') === 0) return;
    this.later(async () => {
      const { receivedAt, keyId } = rows[0]!;
      const page = await this.storage.searchExplorer(store.id, { status: 'rejected', since: receivedAt, until: receivedAt, limit: Math.min(500, rows.length * 4) });
      const mine = page.records.filter((record) => record.keyId === keyId && record.receivedAt === receivedAt).slice(0, rows.length);
      // Newest first from the Explorer; announced in receipt order.
      for (const record of mine.reverse()) {
        this.publish({ store: store.slug, seq: record.seq, status: 'rejected', statementId: record.statementId, receivedAt: record.receivedAt });
      }
    });
  }

  /** Runs after the write that announced it has been answered, and after the read-backs announced before it. */
  private later(work: () => Promise<void>): void {
    if (!this.listening) return;
    this.readBacks = this.readBacks
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(work)
      // An event lost to a storage error only delays the console until its next refresh.
      .catch(() => {});
  }

  /** Gathers a Store's news for the next `change` message; nothing while no stream listens for them. */
  private noteChange(store: Pick<StoreRecord, 'id' | 'slug'>, count: number, toSeq: number): void {
    if (this.listeners('change') === 0) return;
    const current = this.pending.get(store.id);
    this.pending.set(store.id, { store, count: (current?.count ?? 0) + count, toSeq: Math.max(current?.toSeq ?? 0, toSeq) });
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      this.flushChanges().catch(() => {});
    }, this.coalesceMs);
  }

  /** One `change` per Store with news: up to the newest seq the Store holds now. */
  private async flushChanges(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (const { store, count, toSeq } of batch) {
      const newest = await this.newestSeq(store.id);
      this.emitter.emit('change', changeFrame({ store: store.slug, toSeq: Math.max(toSeq, newest ?? 0), count }));
    }
  }

  /** The newest seq among a Store's statements and rejections; null when it holds none. */
  async newestSeq(storeId: string): Promise<number | null> {
    const page = await this.storage.searchExplorer(storeId, { limit: 1 });
    return page.records[0]?.seq ?? null;
  }

  /** Publishes a change another process committed, read back from the storage like a local one. */
  private async relayChange(change: StorageChange): Promise<void> {
    if (change.kind === 'directory') return; // nothing the console streams
    if (change.kind === 'refusal') {
      const store = change.storeId === null ? null : await this.storage.findStoreById(change.storeId);
      if (change.storeId !== null && !store) return;
      this.publishRefusal({ store: store?.slug ?? null, id: change.id, status: change.status, code: change.code, at: change.at });
      return;
    }
    const store = await this.storage.findStoreById(change.storeId);
    if (!store) return;
    this.noteChange(store, change.toSeq - change.fromSeq + 1 + change.voided.length, change.toSeq);
    if (this.listeners('statement') === 0) return;
    const page = await this.storage.searchExplorer(store.id, { beforeSeq: change.toSeq + 1, limit: Math.min(500, change.toSeq - change.fromSeq + 1) });
    // Newest first from the Explorer; announced in receipt order.
    for (const record of page.records.filter((r) => r.seq >= change.fromSeq).reverse()) {
      this.publish({ store: store.slug, seq: record.seq, status: record.status, statementId: record.statementId, receivedAt: record.receivedAt });
    }
    for (const statementId of change.voided) {
      const target = await this.storage.findStatement(store.id, statementId);
      if (target?.voided) this.publish({ store: store.slug, seq: target.seq, status: 'voided', statementId: target.statementId, receivedAt: target.stored });
    }
  }
}
