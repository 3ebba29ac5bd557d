/**
 * A checksum per page of the snapshot, kept beside it in `lore.sqlite.sums`, so damage to the
 * snapshot (a bad sector, a bad copy) is found when it is read at start instead of being served
 * as data. CRC-32 of each PAGE_BYTES page: 4 bytes a page, under 3 MB for a 2.7 GB snapshot, and
 * checked at several GB/s.
 *
 * The sums are written after each snapshot (a whole image, or its changed pages) under a temporary
 * name and renamed. A crash between the snapshot and its sums leaves the sums of the previous
 * snapshot: they name the journal seq of the snapshot they describe, so the open tells stale sums
 * (a different seq: the snapshot is then checked with `PRAGMA quick_check` and the sums rewritten)
 * from damage (the same seq, a page that differs: refused).
 *
 * File format (little-endian): the magic `LORESUMS`, u32 format version (1), u32 page size, f64
 * the snapshot's size in bytes, f64 the journal seq it holds, u32 page count N, N × u32 CRC-32,
 * then u32 CRC-32 of everything before it.
 */
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { SNAPSHOT_SUMS_FILE, SNAPSHOT_SUMS_TEMP_FILE } from './data-dir-files';
import { PAGE_BYTES } from './file-changes';
import { replaceFileDurably } from './fs';
import type { StorageFs } from './fs';

const MAGIC = Buffer.from('LORESUMS', 'latin1');
const FORMAT_VERSION = 1;
const HEADER_BYTES = 8 + 4 + 4 + 8 + 8 + 4;

const ZEROS = new Uint8Array(PAGE_BYTES);
/** Every whole page of zeros has this sum: a file that grew by 100,000 pages need not sum each. */
const ZERO_PAGE_SUM = crc32(ZEROS);

/** The CRC-32 of page `page` of a file of `fileBytes` whose bytes there are all zero. */
function zeroSum(page: number, fileBytes: number): number {
  const inside = Math.min(PAGE_BYTES, fileBytes - page * PAGE_BYTES);
  return inside === PAGE_BYTES ? ZERO_PAGE_SUM : crc32(ZEROS.subarray(0, inside));
}

/** The CRC-32 of page `page` of a file of `fileBytes` (the last page may be short). */
function pageSum(bytes: Uint8Array, page: number, fileBytes: number): number {
  const start = page * PAGE_BYTES;
  return crc32(bytes.subarray(start, Math.min(start + PAGE_BYTES, fileBytes)));
}

export class PageSums {
  constructor(
    /** The journal seq of the snapshot the sums describe (its meta table's journal_seq). */
    public journalSeq: number,
    public fileBytes: number,
    public sums: Uint32Array,
  ) {}

  static ofImage(image: Uint8Array, journalSeq: number): PageSums {
    const sums = new Uint32Array(Math.ceil(image.length / PAGE_BYTES));
    for (let page = 0; page < sums.length; page++) sums[page] = pageSum(image, page, image.length);
    return new PageSums(journalSeq, image.length, sums);
  }

  /** The pages whose sums differ from `actual` (the snapshot's bytes as read), and whether the size does. */
  mismatches(actual: PageSums): { pages: number[]; sizeDiffers: boolean } {
    const pages: number[] = [];
    const count = Math.min(this.sums.length, actual.sums.length);
    for (let page = 0; page < count; page++) if (this.sums[page] !== actual.sums[page]) pages.push(page);
    return { pages, sizeDiffers: actual.fileBytes !== this.fileBytes };
  }

  withJournalSeq(journalSeq: number): PageSums {
    return new PageSums(journalSeq, this.fileBytes, this.sums);
  }

  /**
   * The sums after a changed-pages snapshot: the file's new size, and the changed pages' new sums.
   * A page the file grew by but nobody wrote holds zeros (the file was extended): SQLite never
   * writes its lock-byte page, the one at 1 GiB, so a database that grows past it has one.
   */
  afterChanges(journalSeq: number, fileBytes: number, pages: Uint32Array, pageSums: Uint32Array): PageSums {
    const sums = new Uint32Array(Math.ceil(fileBytes / PAGE_BYTES));
    const kept = Math.min(this.sums.length, sums.length);
    sums.set(this.sums.subarray(0, kept));
    // SQLite writes whole pages of 4 KiB (PAGE_BYTES): the pages the file grew by start as zeros.
    for (let page = kept; page < sums.length; page++) sums[page] = zeroSum(page, fileBytes);
    for (const [i, page] of pages.entries()) if (page < sums.length) sums[page] = pageSums[i]!;
    return new PageSums(journalSeq, fileBytes, sums);
  }

  /**
   * Takes the sums of a run of changed pages as it is written (writeSnapshotPages' `onRun`):
   * `into[i]` for the page at index `i` of `pages`, only the part of the page inside the file.
   */
  static ofRun(pages: Uint32Array, fileBytes: number, into: Uint32Array): (firstIndex: number, run: Uint8Array) => void {
    return (firstIndex, run) => {
      for (let k = 0; k * PAGE_BYTES < run.length; k++) {
        const page = pages[firstIndex + k]!;
        const inside = Math.max(0, Math.min(PAGE_BYTES, fileBytes - page * PAGE_BYTES));
        into[firstIndex + k] = crc32(run.subarray(k * PAGE_BYTES, k * PAGE_BYTES + inside));
      }
    };
  }

  encode(): Uint8Array {
    const buf = Buffer.alloc(HEADER_BYTES + 4 * this.sums.length + 4);
    MAGIC.copy(buf, 0);
    buf.writeUInt32LE(FORMAT_VERSION, 8);
    buf.writeUInt32LE(PAGE_BYTES, 12);
    buf.writeDoubleLE(this.fileBytes, 16);
    buf.writeDoubleLE(this.journalSeq, 24);
    buf.writeUInt32LE(this.sums.length, 32);
    Buffer.from(this.sums.buffer, this.sums.byteOffset, this.sums.byteLength).copy(buf, HEADER_BYTES);
    buf.writeUInt32LE(crc32(buf.subarray(0, buf.length - 4)), buf.length - 4);
    return buf;
  }

  /** The sums in a file's bytes, or why they cannot be read. */
  static decode(bytes: Uint8Array): PageSums | string {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (buf.length < HEADER_BYTES + 4 || !buf.subarray(0, 8).equals(MAGIC)) return 'not a sums file';
    if (crc32(buf.subarray(0, buf.length - 4)) !== buf.readUInt32LE(buf.length - 4)) return 'its own checksum does not match';
    if (buf.readUInt32LE(8) !== FORMAT_VERSION || buf.readUInt32LE(12) !== PAGE_BYTES) return 'another format';
    const count = buf.readUInt32LE(32);
    if (buf.length !== HEADER_BYTES + 4 * count + 4) return `${buf.length} bytes for ${count} pages`;
    const sums = new Uint32Array(count);
    for (let i = 0; i < count; i++) sums[i] = buf.readUInt32LE(HEADER_BYTES + 4 * i);
    return new PageSums(buf.readDoubleLE(24), buf.readDoubleLE(16), sums);
  }
}

/**
 * The sums of a file taken as it is read (fs.ts, ReadProgress): each whole page as soon as it is
 * in, on this thread, while libuv's thread pool reads the next chunk. Reading a snapshot into its
 * reservation (page faults and a copy: system time) costs about as much as summing it, so summing
 * while reading takes the two nearly down to the read alone. The last page is summed once the
 * file is whole. `finish` sums whatever was not told (a file layer that does not report progress,
 * a file that shrank while read): the answer is always the sums of the bytes the read returned,
 * before sql.js owns them.
 */
export class PageSummer {
  private sums: Uint32Array | null = null;
  private fileBytes = -1;
  private summedPages = 0;

  readonly onRead = (into: Uint8Array, readBytes: number): void => {
    if (this.sums === null) {
      this.fileBytes = into.length;
      this.sums = new Uint32Array(Math.ceil(into.length / PAGE_BYTES));
    }
    if (into.length !== this.fileBytes) return;
    const through = readBytes >= into.length ? this.sums.length : Math.floor(readBytes / PAGE_BYTES);
    for (let page = this.summedPages; page < through; page++) this.sums[page] = pageSum(into, page, into.length);
    this.summedPages = Math.max(this.summedPages, through);
  };

  /** The sums of `image`, the bytes the read returned. */
  finish(image: Uint8Array): PageSums {
    if (this.sums === null || image.length !== this.fileBytes) return PageSums.ofImage(image, 0);
    this.onRead(image, image.length);
    return new PageSums(0, image.length, this.sums);
  }
}

/** The sums file of a data directory: the sums, null when there is none, or why it cannot be read. */
export async function readPageSums(fs: StorageFs, dataDir: string): Promise<PageSums | string | null> {
  const bytes = await fs.readFile(path.join(dataDir, SNAPSHOT_SUMS_FILE));
  return bytes === null ? null : PageSums.decode(bytes);
}

export function writePageSums(fs: StorageFs, dataDir: string, sums: PageSums): Promise<void> {
  return replaceFileDurably(fs, path.join(dataDir, SNAPSHOT_SUMS_FILE), path.join(dataDir, SNAPSHOT_SUMS_TEMP_FILE), sums.encode());
}

/** The snapshot's pages that do not match their checksums: refused at open, named by page and byte offset. */
export class SnapshotDamagedError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    dataDir: string,
  ) {
    super(
      `${file} is damaged: ${detail}. Lore did not start and changed nothing. ` +
        `Restore the newest backup and replay the journal written since: \`npm run restore -- --list --data-dir ${dataDir}\` shows the backups, ` +
        `\`npm run restore -- --data-dir ${dataDir} --from <backup> --replay-journal\` restores one (README, "Recovery").`,
    );
    this.name = 'SnapshotDamagedError';
  }
}

/** "pages 120 and 121 (bytes 491520–499711)": where the damage is, for a person. */
export function describePages(pages: number[]): string {
  const shown = pages.slice(0, 5);
  const ranges = shown.map((page) => `${page} (bytes ${page * PAGE_BYTES}–${(page + 1) * PAGE_BYTES - 1})`);
  const more = pages.length > shown.length ? ` and ${pages.length - shown.length} more` : '';
  return `${pages.length === 1 ? 'page' : `${pages.length} pages:`} ${ranges.join(', ')}${more} do${pages.length === 1 ? 'es' : ''} not match ${SNAPSHOT_SUMS_FILE}`;
}

