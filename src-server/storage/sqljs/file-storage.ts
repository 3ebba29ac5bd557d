/**
 * How sql.js's in-memory file system allocates a database file (the hook scripts/patch-sqljs.mjs
 * adds at install).
 *
 * Left to itself, sql.js grows the file by 12.5% at a time, copying all of it into fresh memory at
 * each step; fresh memory costs a page fault per 4 KiB page when first written, so one step holds
 * the event loop for 30–40 ms at 60 MB and for seconds at 2 GB (measured here), every ~12% of
 * growth. Instead, once a file passes RESERVE_FROM_BYTES it moves, once, into a typed array as large
 * as the database may become. Pages of that array that are never written stay address space, not
 * memory (the allocation is zero-filled on demand by the OS), so the process's memory still follows
 * the data; and the file never moves again.
 */
import { DEFAULT_CAPACITY_LIMIT_BYTES } from './capacity';

/** Small databases (tests, a new Store) keep sql.js's own growth: cheap at their size. */
export const RESERVE_FROM_BYTES = 16 * 1024 * 1024;
/** The most a database holds (capacity.ts); a file beyond it grows as sql.js would. */
export const RESERVATION_BYTES = DEFAULT_CAPACITY_LIMIT_BYTES;

/**
 * Storage for a file of at least `bytes`, or undefined for sql.js's own allocation: a small file,
 * a file beyond the reservation, or a machine that refuses to reserve that much address space.
 */
export function allocateFileStorage(bytes: number): Uint8Array | undefined {
  if (bytes < RESERVE_FROM_BYTES || bytes > RESERVATION_BYTES) return undefined;
  try {
    return new Uint8Array(RESERVATION_BYTES);
  } catch {
    return undefined;
  }
}
