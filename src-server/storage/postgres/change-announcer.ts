/**
 * This process's writes, told to the other processes sharing the database (change-feed.ts hears
 * them there): gathered for a short interval after their COMMIT and sent together, one NOTIFY
 * statement per interval, outside any write's transaction.
 *
 * Why not a NOTIFY in each write's transaction: PostgreSQL serialises every committing
 * transaction that notifies (one lock for the whole server, held through the commit's flush), and
 * a notifying transaction cost this server ~840 µs of CPU against ~300 µs without; with two
 * processes the writes queued on it. Sent afterwards, one notification carries the writes of an
 * interval, and no write waits for it.
 *
 * What it costs: the others hear of a write up to one interval (plus the send) later, which their
 * uses allow (the console's live views gather changes for 250 ms anyway; a forwarder also wakes
 * on its own timer); and a process that dies between a COMMIT and the send never tells it: the
 * others find those records by looking, within a second or two (missed-records.ts). Changes that
 * must reach every process at their COMMIT — Stores and API keys, which the
 * processes keep (directory-cache.ts) — are still sent in their transaction (ChangeFeed.notify).
 */
import type { StorageChange } from '../storage';
import { CHANNEL, MAX_PAYLOAD } from './change-feed';
import type { PostgresDatabase } from './database';

/** How long writes are gathered before one notification tells them. */
const ANNOUNCE_INTERVAL_MS = 50;
/** Past this many changes waiting (the database is away), the oldest are dropped: they would be news no one can act on. */
const MAX_PENDING = 10_000;

/**
 * The notifications' texts for `changes` (in the order they committed): a Store's statements in
 * consecutive seqs are told as one range; each text stays under PostgreSQL's limit.
 */
export function announcementPayloads(origin: string, changes: readonly StorageChange[]): string[] {
  const merged: StorageChange[] = [];
  for (const change of changes) {
    const last = merged[merged.length - 1];
    if (last?.kind === 'records' && change.kind === 'records' && last.storeId === change.storeId && last.toSeq + 1 === change.fromSeq) {
      merged[merged.length - 1] = { ...last, toSeq: change.toSeq, voided: [...last.voided, ...change.voided] };
    } else {
      merged.push(change);
    }
  }
  const payloads: string[] = [];
  let batch: string[] = [];
  const text = (parts: string[]) => `{"origin":${JSON.stringify(origin)},"changes":[${parts.join(',')}]}`;
  for (const change of merged) {
    let part = JSON.stringify(change);
    // A write voiding very many statements: the voided ones show on the console's next read.
    if (text([part]).length > MAX_PAYLOAD && change.kind === 'records') part = JSON.stringify({ ...change, voided: [] });
    if (batch.length > 0 && text([...batch, part]).length > MAX_PAYLOAD) {
      payloads.push(text(batch));
      batch = [];
    }
    batch.push(part);
  }
  if (batch.length > 0) payloads.push(text(batch));
  return payloads;
}

export class ChangeAnnouncer {
  private pending: StorageChange[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The send under way: the next waits for it, so notifications leave in the order of the writes. */
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: PostgresDatabase,
    private readonly origin: string,
    private readonly log: (message: string) => void,
    private readonly intervalMs = ANNOUNCE_INTERVAL_MS,
  ) {}

  /** `change` committed: the others hear of it within the interval. */
  announce(change: StorageChange): void {
    this.pending.push(change);
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Sends what waits now; resolves once it is sent (or could not be: logged). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const changes = this.pending;
    this.pending = [];
    if (changes.length === 0) return this.sending;
    const payloads = announcementPayloads(this.origin, changes);
    this.sending = this.sending.then(() =>
      this.db
        .query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY n', [CHANNEL, payloads])
        .then(
          () => {},
          (err: unknown) => this.log(`could not tell the other processes of ${changes.length} change(s): ${String(err)}`),
        ),
    );
    return this.sending;
  }
}
