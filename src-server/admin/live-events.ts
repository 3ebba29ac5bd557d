/**
 * Live events: every statement accepted, voided or rejected, as it is recorded, for the admin
 * API's event stream (GET /admin/api/events) and through it the console.
 *
 * One bus per service, made by buildServer and handed to what publishes and what subscribes (so
 * two services in one process, as in tests, never see each other's events). The write path
 * (lrs/statement-writes.ts) calls `announce*` after its write resolved; they return at once. When
 * nobody listens they do nothing at all; otherwise the few reads that complete an event (its seq)
 * run on a later turn of the event loop, so the client that sent the statements never waits for
 * them. Changes other processes commit to a shared database (Storage.watchChanges) are relayed too.
 */
import { EventEmitter } from 'node:events';
import type { RejectionRow, Storage, StorageChange, StoreRecord } from '../storage/storage';
import type { LiveEventView, RefusalEventView } from './contract';

export type LiveEventListener = (event: LiveEventView) => void;
export type RefusalEventListener = (event: RefusalEventView) => void;

export class LiveEventBus {
  private readonly emitter = new EventEmitter();
  private readonly stopWatching: () => void;

  constructor(private readonly storage: Storage) {
    // Every open console tab is a listener; the stream route bounds what each one may buffer.
    this.emitter.setMaxListeners(0);
    // What other service processes on the same database record shows here too (PostgreSQL).
    this.stopWatching = storage.watchChanges?.((change) => this.later(() => this.relayChange(change))) ?? (() => {});
  }

  get listening(): boolean {
    return this.emitter.listenerCount('statement') > 0;
  }

  publish(event: LiveEventView): void {
    this.emitter.emit('statement', event);
  }

  /** A refused request was logged (refusal-recorder.ts); nothing happens when nobody listens. */
  publishRefusal(event: RefusalEventView): void {
    this.emitter.emit('refusal', event);
  }

  /** Refused requests as they are logged; returns the unsubscribe function. */
  subscribeRefusals(listener: RefusalEventListener): () => void {
    const safe: RefusalEventListener = (event) => {
      try {
        listener(event);
      } catch {
        // the listener's own problem
      }
    };
    this.emitter.on('refusal', safe);
    return () => this.emitter.off('refusal', safe);
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: LiveEventListener): () => void {
    // One throwing listener must not keep the others from their events.
    const safe: LiveEventListener = (event) => {
      try {
        listener(event);
      } catch {
        // the listener's own problem
      }
    };
    this.emitter.on('statement', safe);
    return () => this.emitter.off('statement', safe);
  }

  /** Stops relaying other processes' changes (the service is closing). */
  dispose(): void {
    this.stopWatching();
  }

  /**
   * Statements a write inserted (`inserted`: their ids; the rows that came back unchanged are not
   * news). A voiding statement also announces its target, now voided.
   */
  announceStatements(store: StoreRecord, rows: ReadonlyArray<{ statementId: string; voidsStatementId: string | null }>, inserted: readonly string[]): void {
    if (inserted.length === 0) return;
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

  private later(work: () => Promise<void>): void {
    if (!this.listening && this.emitter.listenerCount('refusal') === 0) return;
    setImmediate(() => {
      // An event lost to a storage error only delays the console until its next refresh.
      work().catch(() => {});
    });
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
