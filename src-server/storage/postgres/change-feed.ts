/**
 * What other service processes on the same database wrote: PostgreSQL's LISTEN/NOTIFY. Writes of
 * statements, rejections and refusals are told after their COMMIT, gathered over a short interval
 * (change-announcer.ts); a write of Stores or API keys sends its notification from inside its
 * transaction (delivered at COMMIT, never for a rollback), as the processes keep those. Every
 * process listens on one connection of its own and hands the changes of the others (not its own:
 * it announces those itself) to its subscribers: the console's live views, the forwarders, the
 * cache of Stores and keys.
 *
 * The listening connection reconnects by itself after the database went away (1 s, doubling up
 * to 30 s). Notifications sent while it was away are lost; the records they told of are found by
 * looking (missed-records.ts), as are those of a process that died before it announced them.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { StorageChange } from '../storage';
import type { Tx } from './database';

export const CHANNEL = 'lore_changes';
/** PostgreSQL refuses a payload of 8000 bytes or more. */
export const MAX_PAYLOAD = 7_900;

/** One change (sent in a transaction, and by releases before changes were gathered), or several (change-announcer.ts). */
type Notice = { origin: string; change: StorageChange } | { origin: string; changes: StorageChange[] };

export class ChangeFeed {
  /** This process's mark on its notifications. */
  readonly origin = randomUUID();
  private readonly listeners = new Set<(change: StorageChange) => void>();
  private client: pg.Client | null = null;
  private retryMs = 1_000;
  /** LISTEN is in place: every other process's change reaches this one. */
  private heard = false;
  /** Called whenever the connection is lost: what was learnt from it may be stale now. */
  private readonly lostListeners = new Set<() => void>();
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Sends `change` from inside the write transaction `tx`: the others hear of it at its COMMIT. */
  async notify(tx: Tx, change: StorageChange): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [CHANNEL, this.payload(change)]);
  }

  /** The text a notification of `change` carries. */
  private payload(change: StorageChange): string {
    return JSON.stringify({ origin: this.origin, change } satisfies Notice);
  }

  /**
   * Listens from now on (the storage starts it at open: a subscriber that comes later must not
   * miss what commits while the connection is being set up).
   */
  start(): Promise<void> {
    return this.connect();
  }

  /** Whether every change of the other processes reaches this one now. */
  get listening(): boolean {
    return this.heard;
  }

  /** `listener` runs whenever the connection is lost (changes may have been missed). */
  onLost(listener: () => void): void {
    this.lostListeners.add(listener);
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: (change: StorageChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'lore-lrs-changes' });
    client.on('notification', (message) => this.deliver(message.payload));
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.retryMs = 1_000;
      if (this.client === client) this.heard = true;
    } catch (err) {
      this.log(`live changes from other processes paused: ${String(err)}`);
      this.reconnect(client);
    }
  }

  private reconnect(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.heard = false;
    for (const listener of this.lostListeners) listener();
    void client.end().catch(() => {});
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private deliver(payload: string | undefined): void {
    if (!payload) return;
    let notice: Notice;
    try {
      notice = JSON.parse(payload) as Notice;
    } catch {
      return; // not one of ours
    }
    if (notice.origin === this.origin) return;
    for (const change of 'changes' in notice ? notice.changes : [notice.change]) this.tellHere(change);
  }

  /** Hands `change` to this process's subscribers, as if another process had sent it (missed-records.ts). */
  tellHere(change: StorageChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch {
        // the listener's own problem
      }
    }
  }
}
