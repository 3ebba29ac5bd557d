/**
 * How sql.js's in-memory file system allocates a database file (the hook scripts/patch-sqljs.mjs
 * adds at install).
 *
 * Left to itself, sql.js grows the file by 12.5% at a time, copying all of it into fresh memory at
 * each step; fresh memory costs a page fault per 4 KiB page when first written, so one step holds
 * the event loop for 20–40 ms at 60 MB and for seconds at 2 GB (measured here), every ~12% of
 * growth. Instead, a file of RESERVE_FROM_BYTES or more lives in one typed array as large as the
 * database may become (a reservation). Pages of it that are never written stay address space, not
 * memory (the OS zero-fills them on first use), so the process's memory still follows the data;
 * and the file never moves again. A snapshot is read straight into a reservation
 * (imageStorageFor), which the file system then keeps: opening copies nothing either.
 *
 * Below that, a file from DOUBLE_FROM_BYTES grows to the next power of two rather than by 12.5%: a
 * new data directory's file reached 16 MiB in ~24 steps that copied ~130 MB into fresh memory
 * between them (19 µs of every statement of its first 30,000 in batches, measured here), and
 * reaches it in four that copy 15 MB. The file then takes at most twice its size until it moves
 * into a reservation.
 */
import { DEFAULT_CAPACITY_LIMIT_BYTES } from './capacity';

/** Smaller databases (tests, a new data directory) grow by doubling: a reservation each would be address space for nothing. */
export const RESERVE_FROM_BYTES = 16 * 1024 * 1024;
/** Below this sql.js doubles a file itself. */
const DOUBLE_FROM_BYTES = 1024 * 1024;
/** The most a database holds (capacity.ts); a file beyond it grows as sql.js would. */
export const RESERVATION_BYTES = DEFAULT_CAPACITY_LIMIT_BYTES;

const reservations = new WeakSet<ArrayBuffer>();

/** A reservation, or undefined where the machine refuses that much address space. */
function reserve(): Uint8Array | undefined {
  try {
    const storage = new Uint8Array(RESERVATION_BYTES);
    reservations.add(storage.buffer);
    return storage;
  } catch {
    return undefined;
  }
}

/**
 * The hook: storage for a file of at least `bytes`, or undefined for sql.js's own allocation (a
 * file under 1 MiB, a file beyond the reservation, a refused reservation).
 *
 * With `contents` (a database opened from an image): an image read into a reservation is kept as
 * it is. Any other image is left to sql.js, which keeps a Node Buffer as it is too (its slice is a
 * view) and copies other arrays: those images are opened to be read (a backup's check), and one
 * that is written to past its end moves into a reservation then, once.
 */
export function allocateFileStorage(bytes: number, contents?: Uint8Array): Uint8Array | undefined {
  if (contents) return contents.byteOffset === 0 && reservations.has(contents.buffer as ArrayBuffer) ? new Uint8Array(contents.buffer) : undefined;
  if (bytes < DOUBLE_FROM_BYTES || bytes > RESERVATION_BYTES) return undefined;
  if (bytes < RESERVE_FROM_BYTES) return new Uint8Array(2 ** Math.ceil(Math.log2(bytes)));
  return reserve();
}

/** Where to read a database image of `size` bytes: a reservation when the file system would want one. */
export function imageStorageFor(size: number): Uint8Array | undefined {
  return size >= RESERVE_FROM_BYTES && size <= RESERVATION_BYTES ? reserve() : undefined;
}
