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
 * File format (little-endian): the magic `LOREPAGE`, u32 format version (1), u32 page size
 * (PAGE_BYTES), f64 the database file's size, u32 the number of pages N, N × u32 page numbers
 * (ascending), then N pages.
 */
import path from 'node:path';
import type { StorageFs } from './fs';
import { FLUSH_EVERY_BYTES, writeFileDurably } from './fs';
import { PAGE_BYTES } from './file-changes';
import type { ChangedPages } from './file-changes';
import { SNAPSHOT_FILE, SNAPSHOT_PAGES_FILE, SNAPSHOT_PAGES_TEMP_FILE } from './data-dir-files';

const MAGIC = Buffer.from('LOREPAGE', 'latin1');
const FORMAT_VERSION = 1;
const FIXED_HEADER_BYTES = 8 + 4 + 4 + 8 + 4;

/** The pages file's contents, as parts to write one after another: its header, then the pages. */
export function encodeSnapshotPages(changes: ChangedPages): Uint8Array[] {
  return [encodeHeader(changes), changes.data];
}

function encodeHeader(changes: ChangedPages): Uint8Array {
  const header = Buffer.alloc(FIXED_HEADER_BYTES + 4 * changes.pages.length);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(FORMAT_VERSION, 8);
  header.writeUInt32LE(PAGE_BYTES, 12);
  header.writeDoubleLE(changes.fileBytes, 16);
  header.writeUInt32LE(changes.pages.length, 24);
  for (const [i, page] of changes.pages.entries()) header.writeUInt32LE(page, FIXED_HEADER_BYTES + 4 * i);
  return header;
}

/** The pages file's contents, or an error naming what is wrong with it. */
export function decodeSnapshotPages(bytes: Uint8Array): ChangedPages {
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
  return { pages, data: buf.subarray(dataAt), fileBytes };
}

/** Puts `changes` on disk as the complete pages file (temp file, fdatasync, rename, directory sync). */
export async function writeSnapshotPages(fs: StorageFs, dataDir: string, changes: ChangedPages): Promise<void> {
  const temp = path.join(dataDir, SNAPSHOT_PAGES_TEMP_FILE);
  try {
    await writeFileDurably(fs, temp, encodeSnapshotPages(changes));
    await fs.rename(temp, path.join(dataDir, SNAPSHOT_PAGES_FILE));
    await fs.syncDir(dataDir);
  } catch (err) {
    await fs.unlink(temp).catch(() => {});
    throw err;
  }
}

/**
 * Writes the pages into `lore.sqlite` in place, cuts it to the database's size, syncs it, and
 * removes the pages file. Consecutive pages go in one write.
 */
export async function applySnapshotPages(fs: StorageFs, dataDir: string, changes: ChangedPages): Promise<void> {
  const { pages, data, fileBytes } = changes;
  const handle = await fs.open(path.join(dataDir, SNAPSHOT_FILE), { truncate: false });
  try {
    let unsynced = 0;
    for (let first = 0; first < pages.length; ) {
      let end = first + 1;
      while (end < pages.length && pages[end] === pages[end - 1]! + 1) end++;
      await handle.write(data.subarray(first * PAGE_BYTES, end * PAGE_BYTES), pages[first]! * PAGE_BYTES);
      unsynced += (end - first) * PAGE_BYTES;
      // Synced along the way, as writeFileDurably does: the journal's fdatasyncs would queue behind all of it.
      if (unsynced >= FLUSH_EVERY_BYTES) {
        await handle.datasync();
        unsynced = 0;
      }
      first = end;
    }
    // Also drops what the last page wrote past the end (a page is a whole unit, the file need not be).
    await handle.truncate(fileBytes);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fs.unlink(path.join(dataDir, SNAPSHOT_PAGES_FILE));
  await fs.syncDir(dataDir);
}

/**
 * At open, before the snapshot is read: finishes a snapshot a crash interrupted. A temp pages file
 * was never complete (the snapshot it belonged to did not happen: its journal files are all
 * there); a pages file is written into `lore.sqlite`. Returns the number of pages written.
 */
export async function finishSnapshotPages(fs: StorageFs, dataDir: string): Promise<number> {
  await fs.unlink(path.join(dataDir, SNAPSHOT_PAGES_TEMP_FILE));
  const bytes = await fs.readFile(path.join(dataDir, SNAPSHOT_PAGES_FILE));
  if (bytes === null) return 0;
  const changes = decodeSnapshotPages(bytes);
  await applySnapshotPages(fs, dataDir, changes);
  return changes.pages.length;
}
