/**
 * The service processes sharing one database, counted by heartbeat: each process writes its row
 * every HEARTBEAT_MS and counts the rows seen within ALIVE_MS. Per-process limits that must hold
 * for the whole deployment (the request rate per API key) divide by this count: behind a proxy
 * that spreads requests over the processes, each sees about its share of a key's requests. A
 * process that stops without a word drops out of the count after ALIVE_MS.
 */
import type { PostgresDatabase } from './database';

const HEARTBEAT_MS = 5_000;
const ALIVE_MS = 15_000;

export class ProcessRegistry {
  private live = 1;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: PostgresDatabase,
    private readonly origin: string,
    private readonly log: (message: string) => void,
  ) {}

  /** The processes alive at the last heartbeat, this one included (1 until the first one). */
  get count(): number {
    return this.live;
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat().catch((err: unknown) => this.log(`heartbeat to the database failed: ${String(err)}`)), HEARTBEAT_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.db.query('DELETE FROM service_processes WHERE origin = $1', [this.origin]).catch(() => {});
  }

  private async beat(now = Date.now()): Promise<void> {
    await this.db.query(
      'INSERT INTO service_processes (origin, seen_ms) VALUES ($1, $2) ON CONFLICT (origin) DO UPDATE SET seen_ms = excluded.seen_ms',
      [this.origin, now],
    );
    await this.db.query('DELETE FROM service_processes WHERE seen_ms < $1', [now - 4 * ALIVE_MS]);
    const [row] = await this.db.query<{ live: number }>('SELECT count(*)::integer AS live FROM service_processes WHERE seen_ms >= $1', [now - ALIVE_MS]);
    this.live = Math.max(1, row?.live ?? 1);
  }
}
