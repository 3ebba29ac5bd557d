/**
 * How full the in-memory database is, against the most this build can hold, and the guard that
 * refuses writes that add data before the limit is met (a 507 with what to do, never a crash).
 *
 * The limit is 3 GiB. The database file lives in sql.js's in-memory file system, a JavaScript
 * typed array outside its WebAssembly memory (which holds only SQLite's page cache and working
 * memory): measured with sql.js 1.16 on Node 20, a 2.6 GB database was written, exported and
 * opened again. Typed arrays reach 4 GiB; the file is kept in one array of this limit once past
 * 16 MiB (file-storage.ts), and a file beyond it would grow by sql.js's own 12.5% step, still under
 * 4 GiB; a snapshot copies the whole image, and the process then holds about twice the data
 * (5.2 GB for 2.4 GiB, export included; README, "Capacity"). The snapshot is read at start in
 * chunks, since Node's readFile stops at 2 GiB (fs.ts, readWholeFile).
 *
 * Used bytes are the pages that hold data, (page_count - freelist_count) × page_size: pages freed by
 * deleting data are reused by later writes, so deleting data makes room even though the image
 * keeps its size.
 */
import { StorageFullError } from '../storage';
import type { StorageCapacity } from '../storage';
import type { Sql } from './sql';

export const DEFAULT_CAPACITY_LIMIT_BYTES = 3 * 1024 * 1024 * 1024;
/** Above this share of the limit the status says `warning` and the log says so once. */
const CAPACITY_WARNING_RATIO = 0.8;
/** At or above this share, writes that add data are refused with 507. */
const CAPACITY_FULL_RATIO = 0.95;
/**
 * Reading the page counts costs ~10–20 µs (pragmas prepare a program each time): more than a small
 * write's own SQL. Writes reuse a reading until it is REFRESH_MS old or the journal has grown by
 * REREAD_SHARE of the limit since (the database grows by at most a few times what its records
 * carry), so the 80% and 95% marks are crossed by little: 1% of the limit is 32 MB at 3 GiB.
 */
const REFRESH_MS = 250;
const REREAD_SHARE = 0.01;

export type CapacityState = StorageCapacity['state'];

/** Bytes of the pages that hold data. */
function usedBytes(sql: Sql): number {
  const [pages, free, pageSize] = sql.first('SELECT page_count, freelist_count, page_size FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()')!;
  return ((pages as number) - (free as number)) * (pageSize as number);
}

export function capacityState(used: number, limit: number): CapacityState {
  if (used >= limit * CAPACITY_FULL_RATIO) return 'full';
  if (used >= limit * CAPACITY_WARNING_RATIO) return 'warning';
  return 'ok';
}

export class CapacityGuard {
  private reading: StorageCapacity | null = null;
  private readAt = 0;
  private readAtJournalBytes = 0;
  private reported: CapacityState = 'ok';

  constructor(
    private readonly sql: () => Sql,
    /** Bytes in the current journal file, pending ones included (a snapshot starts a new file). */
    private readonly journalBytes: () => number,
    readonly limitBytes: number,
    private readonly log: (msg: string) => void,
  ) {}

  /** The capacity now (read fresh: for the status, not for every write). */
  current(): StorageCapacity {
    const used = usedBytes(this.sql());
    this.reading = { usedBytes: used, limitBytes: this.limitBytes, state: capacityState(used, this.limitBytes) };
    this.readAt = Date.now();
    this.readAtJournalBytes = this.journalBytes();
    this.report(this.reading);
    return this.reading;
  }

  /**
   * Throws StorageFullError when the database is full; called before a write that adds data. A
   * reading that says full is never reused: a deletion may have made room a moment ago.
   */
  assertRoom(): void {
    const grown = this.journalBytes() - this.readAtJournalBytes;
    const recent = Date.now() - this.readAt < REFRESH_MS && grown >= 0 && grown < this.limitBytes * REREAD_SHARE;
    if (this.reading !== null && this.reading.state !== 'full' && recent) return;
    const fresh = this.current();
    if (fresh.state === 'full') throw fullError(fresh);
  }

  private report(reading: StorageCapacity): void {
    if (reading.state === this.reported) return;
    this.reported = reading.state;
    const share = `${mib(reading.usedBytes)} of ${mib(reading.limitBytes)} (${Math.round((reading.usedBytes / reading.limitBytes) * 100)}%)`;
    if (reading.state === 'ok') this.log(`database capacity back to normal: ${share} used`);
    else if (reading.state === 'warning') this.log(`database capacity warning: ${share} used; ${ADVICE}`);
    else this.log(`database full: ${share} used; statements, rejections and documents are refused with 507 until data is deleted. ${ADVICE}`);
  }
}

const ADVICE =
  'export and delete data you no longer need (empty test Stores, delete old Stores) or move this deployment to PostgreSQL ' +
  '(stop the service, then npm run migrate -- --from <data-dir> --to postgres://…, and start it with --database-url; docs/deploy.md)';

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(0)} MiB`;
}

function fullError(reading: StorageCapacity): StorageFullError {
  return new StorageFullError(
    `The database is full (${mib(reading.usedBytes)} of its ${mib(reading.limitBytes)} limit used); nothing was stored. ` +
      `To make room, ${ADVICE}. Reads keep working.`,
    reading,
  );
}
