/**
 * This process's floor of stored times in flight, where the other processes on the database see
 * it: a session advisory lock on a connection of its own, keyed TIME_LEASE_BASE + the floor
 * (record-seq.ts reads every such lease for X-Experience-API-Consistent-Through). A statement is
 * stamped by the xAPI layer before its transaction starts; until its write is over, the floor
 * (StoredClock.floorMs) stays at or below its stamp, and the lock follows the floor every
 * UPDATE_MS. The lock goes with the connection: a process that dies holds nobody back.
 *
 * While the lock is not held (before the first one, or the connection lost), the process's
 * statement writes are refused (503): the others could not see them coming.
 */
import pg from 'pg';
import { StorageUnavailableError } from '../storage';
import { TIME_LEASE_BASE } from './record-seq';

const UPDATE_MS = 100;

export class StampWatermark {
  private floor: () => number = () => Date.now();
  private client: pg.Client | null = null;
  private heldKey: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private updating = false;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Where the floor is read (the process's StoredClock); until set, the current time. */
  useFloor(floor: () => number): void {
    this.floor = floor;
  }

  async start(): Promise<void> {
    await this.update();
    this.timer = setInterval(() => void this.update(), UPDATE_MS);
    this.timer.unref();
  }

  /** Refuses a statement write while the others cannot see this process's floor. */
  assertHeld(): void {
    if (this.heldKey === null) throw new StorageUnavailableError('the database connection that keeps reads consistent across processes is down; nothing was stored: retry');
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    const client = this.client;
    this.client = null;
    this.heldKey = null;
    await client?.end().catch(() => {});
  }

  private async update(): Promise<void> {
    if (this.updating || this.closed) return;
    this.updating = true;
    try {
      const client = await this.connected();
      const key = TIME_LEASE_BASE + this.floor();
      if (key === this.heldKey) return;
      // The new lock first: there is never a moment without one. Shared, like the transactions'
      // leases: a write's lease at the same time must not wait for it.
      await client.query('SELECT pg_advisory_lock_shared($1::bigint)', [key]);
      if (this.heldKey !== null) await client.query('SELECT pg_advisory_unlock_shared($1::bigint)', [this.heldKey]);
      this.heldKey = key;
    } catch (err) {
      if (this.heldKey !== null || this.client) this.log(`the consistency watermark lost its connection: ${String(err)}`);
      this.heldKey = null;
      const client = this.client;
      this.client = null;
      await client?.end().catch(() => {});
    } finally {
      this.updating = false;
    }
  }

  private async connected(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.url, application_name: 'lore-lrs-watermark' });
    client.on('error', () => {
      // Seen by the next update's query, which reconnects.
      if (this.client === client) {
        this.client = null;
        this.heldKey = null;
      }
    });
    await client.connect();
    this.client = client;
    this.heldKey = null;
    return client;
  }
}
