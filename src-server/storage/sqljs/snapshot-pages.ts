/**
 * A snapshot written as the pages that changed (file-changes.ts) instead of the whole image.
 *
 * The pages go first to `lore.sqlite.pages.tmp`, durably, and are renamed to `lore.sqlite.pages`
 * (then the directory is synced): from that moment the file is complete, and it is the truth about
 * the pages it holds. Only then are they written into `lore.sqlite` in place, and the file is cut
 * to its new size and synced; then `lore.sqlite.pages` is removed. A crash in between leaves
 * `lore.sqlite` partly written, and the next open (loadDatabase) writes the pages file into it
 * again before reading it: writing a page twice gives the same page.
 *
 * Pages are read from their source a run at a time, each run copied just before it is written
 * (the source may be the live database file, frozen: file-changes.ts), so a snapshot holds no
 * copy of all its pages at once; and a few milliseconds of copying at a time, so requests go on
 * between (writePages).
 *
 * File format (little-endian): the magic `LOREPAGE`, u32 format version (1), u32 page size
 * (PAGE_BYTES), f64 the database file's size, u32 the number of pages N, N × u32 page numbers
 * (ascending), then N pages.
 */
import path from 'node:path';
import { SNAPSHOT_FILE, SNAPSHOT_PAGES_FILE, SNAPSHOT_PAGES_TEMP_FILE, SNAPSHOT_TEMP_FILE } from './data-dir-files';
import { PAGE_BYTES, pagesInMemory } from './file-changes';
import type { PageSource } from './file-changes';
import { FLUSH_EVERY_BYTES, changeDurably, replaceFileDurably } from './fs';
import type { StorageFileHandle, StorageFs } from './fs';

const MAGIC = Buffer.from('LOREPAGE', 'latin1');
const FORMAT_VERSION = 1;
const FIXED_HEADER_BYTES = 8 + 4 + 4 + 8 + 4;
/** Pages copied from the source per write, at most: 1 MiB. */
const RUN_PAGES = 256;
const MAX_WRITES_IN_FLIGHT = 64;
/** The runs in flight, at most: one buffer of this size, reused as their writes complete. */
const RING_BYTES = 16 * 1024 * 1024;
/**
 * Copying and summing pages gives the event loop back after this long: requests are served between
 * slices (6,300 changed pages, 25 MB, copied in one go held every request for about 100 ms at
 * 300,000 statements on 2 busy cores).
 */
const SLICE_MS = 8;

/** The pages file's header: everything before the pages themselves. */
export function encodeSnapshotPagesHeader(pages: Uint32Array, fileBytes: number): Uint8Array {
  const header = Buffer.alloc(FIXED_HEADER_BYTES + 4 * pages.length);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(FORMAT_VERSION, 8);
  header.writeUInt32LE(PAGE_BYTES, 12);
  header.writeDoubleLE(fileBytes, 16);
  header.writeUInt32LE(pages.length, 24);
  for (const [i, page] of pages.entries()) header.writeUInt32LE(page, FIXED_HEADER_BYTES + 4 * i);
  return header;
}

/** The pages file's contents, or an error naming what is wrong with it. */
export function decodeSnapshotPages(bytes: Uint8Array): PageSource {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (why: string) => new Error(`${SNAPSHOT_PAGES_FILE} is damaged (${why})`);
  if (buf.length < FIXED_HEADER_BYTES || !buf.subarray(0, 8).equals(MAGIC)) throw fail('not a pages file');
  if (buf.readUInt32LE(8) !== FORMAT_VERSION) throw fail(`format version ${buf.readUInt32LE(8)}`);
  if (buf.readUInt32LE(12) !== PAGE_BYTES) throw fail(`page size ${buf.readUInt32LE(12)}`);
  const fileBytes = buf.readDoubleLE(16);
  const count = buf.readUInt32LE(24);
  const dataAt = FIXED_HEADER_BYTES + 4 * count;
  if (!Number.isSafeInteger(fileBytes) || fileBytes < 0) throw fail(`file size ${fileBytes}`);
  if (buf.length !== dataAt + count * PAGE_BYTES) throw fail(`${buf.length} bytes for ${count} pages`);
  const pages = new Uint32Array(count);
  for (let i = 0; i < count; i++) pages[i] = buf.readUInt32LE(FIXED_HEADER_BYTES + 4 * i);
  return pagesInMemory(pages, buf.subarray(dataAt), fileBytes);
}

/**
 * Where the runs in flight live: one buffer, used as a ring in the order the runs are written (and
 * settled), so a snapshot of any size allocates it once instead of a buffer per run (hundreds of
 * megabytes of short-lived buffers bring long garbage collections).
 */
class RunRing {
  private readonly buffer: Uint8Array;
  private head = 0;

  constructor(bytes: number) {
    this.buffer = new Uint8Array(bytes);
  }

  /**
   * Room for `bytes` after the runs in flight, as its offset in the ring, or null until the oldest
   * of them completes. `oldest`: the offset where the oldest run in flight starts, null when none
   * is. The head never catches up with `oldest` from behind, so a head at `oldest` means an empty ring.
   */
  take(bytes: number, oldest: number | null): number | null {
    if (oldest === null) this.head = 0;
    let at: number | null = null;
    if (oldest === null || this.head > oldest) {
      // In use: [oldest, head). Free: the end of the ring, else its start up to `oldest`.
      if (this.buffer.length - this.head >= bytes) at = this.head;
      else if (oldest === null || oldest > bytes) at = 0;
    } else if (oldest - this.head > bytes) {
      // In use: from `oldest` to the end and the start up to head. Free: [head, oldest).
      at = this.head;
    }
    if (at !== null) this.head = at + bytes;
    return at;
  }

  view(at: number, bytes: number): Uint8Array {
    return this.buffer.subarray(at, at + bytes);
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes the pages of `source` in runs (`contiguous(i)`: page index `i` may share its
 * predecessor's write; a run holds at most RUN_PAGES), `at(i)` giving the position of the run
 * that starts at index `i`. Each run is copied from the source just before its write is issued,
 * and up to MAX_WRITES_IN_FLIGHT writes (RING_BYTES) are under way at once: the changed pages of a
 * large database are scattered, tens of thousands of small writes, and waiting for each in turn
 * costs an event-loop turn each while requests are served (measured: 42,000 pages took 41 s one at
 * a time under load). The copying yields to the event loop every SLICE_MS, whatever the number of
 * pages. Everything is fdatasynced along the way (every FLUSH_EVERY_BYTES), so the journal's own
 * fdatasyncs do not queue behind all of it.
 */
async function writePages(
  handle: StorageFileHandle,
  source: PageSource,
  at: (index: number) => number,
  contiguous: (index: number) => boolean,
  onRun?: (firstIndex: number, run: Uint8Array) => void,
): Promise<void> {
  const { pages, fileBytes } = source;
  const ring = new RunRing(Math.min(RING_BYTES, pages.length * PAGE_BYTES));
  // Each write's failure is caught as it happens (an unhandled rejection would end the process)
  // and reported once the writes before it are awaited. Settled oldest first: the ring's order.
  const inFlight: Array<{ done: Promise<void>; start: number }> = [];
  let failure: { error: unknown } | null = null;
  const settle = async (count: number) => {
    for (const write of inFlight.splice(0, count)) await write.done;
    if (failure) throw failure.error;
  };
  let unsynced = 0;
  let sliceStarted = performance.now();
  try {
    for (let first = 0; first < pages.length; ) {
      let end = first + 1;
      while (end < pages.length && end - first < RUN_PAGES && contiguous(end)) end++;
      const bytes = (end - first) * PAGE_BYTES;
      let start: number | null;
      while ((start = ring.take(bytes, inFlight[0]?.start ?? null)) === null) await settle(1);
      const run = ring.view(start, bytes);
      // Copied when its write is issued: the bytes in flight are the source's, whatever is written to the file meanwhile.
      source.copy(first, end, run);
      // The part of the file's last page past its end is written as zeros, as in a fresh buffer.
      const pastEnd = (pages[end - 1]! + 1) * PAGE_BYTES - fileBytes;
      if (pastEnd > 0) run.fill(0, run.length - Math.min(pastEnd, PAGE_BYTES));
      onRun?.(first, run);
      inFlight.push({ done: handle.write(run, at(first)).catch((error: unknown) => void (failure ??= { error })), start });
      unsynced += run.length;
      if (unsynced >= FLUSH_EVERY_BYTES) {
        await settle(inFlight.length);
        await handle.datasync();
        unsynced = 0;
      } else if (inFlight.length >= MAX_WRITES_IN_FLIGHT) {
        await settle(1);
      }
      // An await above may not have given the event loop a turn (a write already done): give it one.
      if (performance.now() - sliceStarted >= SLICE_MS) {
        await nextTurn();
        sliceStarted = performance.now();
      }
      first = end;
    }
    await settle(inFlight.length);
  } finally {
    // No write may still be under way when the caller closes the file (or reports a failure).
    await Promise.all(inFlight.splice(0).map((write) => write.done));
  }
}

/**
 * Puts `source` on disk as the complete pages file (temp file, fdatasync, rename, directory sync).
 * `onRun` sees each run of pages as it is written (index of its first page, PAGE_BYTES a page):
 * the page sums (snapshot-sums.ts) are taken from the very bytes written.
 */
export async function writeSnapshotPages(
  fs: StorageFs,
  dataDir: string,
  source: PageSource,
  onRun?: (firstIndex: number, run: Uint8Array) => void,
): Promise<void> {
  const file = path.join(dataDir, SNAPSHOT_PAGES_FILE);
  await replaceFileDurably(fs, file, path.join(dataDir, SNAPSHOT_PAGES_TEMP_FILE), async (handle) => {
    const header = encodeSnapshotPagesHeader(source.pages, source.fileBytes);
    await handle.write(header, 0);
    // The file holds every page whole, one after another.
    await writePages(handle, source, (i) => header.length + i * PAGE_BYTES, () => true, onRun);
  });
}

/**
 * Writes `source`, every page of the database file (FileChanges.takeWhole), as the whole snapshot:
 * the temp file, fdatasynced, renamed over `lore.sqlite`, the directory synced. `onRun` as for
 * writeSnapshotPages.
 */
export async function writeSnapshotImage(
  fs: StorageFs,
  dataDir: string,
  source: PageSource,
  onRun?: (firstIndex: number, run: Uint8Array) => void,
): Promise<void> {
  await replaceFileDurably(fs, path.join(dataDir, SNAPSHOT_FILE), path.join(dataDir, SNAPSHOT_TEMP_FILE), async (handle) => {
    await writePages(handle, source, (i) => source.pages[i]! * PAGE_BYTES, () => true, onRun);
    // The last page is written whole; the file ends where the database does.
    await handle.truncate(source.fileBytes);
  });
}

/**
 * Writes the pages into `lore.sqlite` in place (consecutive pages in one write), cuts it to the
 * database's size, syncs it, and removes the pages file.
 */
export async function applySnapshotPages(fs: StorageFs, dataDir: string, source: PageSource): Promise<void> {
  const { pages } = source;
  await changeDurably(fs, path.join(dataDir, SNAPSHOT_FILE), { truncate: false }, async (handle) => {
    await writePages(handle, source, (i) => pages[i]! * PAGE_BYTES, (i) => pages[i] === pages[i - 1]! + 1);
    // Also drops what the last page wrote past the end (a page is a whole unit, the file need not be).
    await handle.truncate(source.fileBytes);
  });
  // The removal need not be durable (no directory sync): a pages file that comes back after a
  // crash is the last snapshot's, whose pages lore.sqlite holds already (any later one renames its
  // own over it first), and writing them again changes nothing.
  await fs.unlink(path.join(dataDir, SNAPSHOT_PAGES_FILE));
}

/**
 * At open, before the snapshot is read: finishes a snapshot a crash interrupted. A temp pages file
 * was never complete (the snapshot it belonged to did not happen: its journal files are all
 * there); a pages file is written into `lore.sqlite`. Returns the pages written (null for none):
 * with the sums of the snapshot they completed, they tell which pages the new one should hold.
 */
export async function finishSnapshotPages(fs: StorageFs, dataDir: string): Promise<PageSource | null> {
  await fs.unlink(path.join(dataDir, SNAPSHOT_PAGES_TEMP_FILE));
  const bytes = await fs.readFile(path.join(dataDir, SNAPSHOT_PAGES_FILE));
  if (bytes === null) return null;
  const source = decodeSnapshotPages(bytes);
  if (!(await fs.readdir(dataDir)).includes(SNAPSHOT_FILE)) {
    // The pages are changes to a snapshot: alone they are not a database (a restore interrupted, a file moved by hand).
    throw new Error(`${SNAPSHOT_PAGES_FILE} is there but ${SNAPSHOT_FILE} is not; not opening. Restore the data directory from a backup.`);
  }
  // The rename that made the pages file may not be durable yet (a crash right after it, or a
  // failed directory sync before a reload): it must be before lore.sqlite changes, or a power loss
  // could leave lore.sqlite half written with nothing to finish it.
  await fs.syncDir(dataDir);
  await applySnapshotPages(fs, dataDir, source);
  return source;
}
