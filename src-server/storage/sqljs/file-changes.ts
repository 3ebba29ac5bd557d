/**
 * Which pages of a database file changed since the snapshot on disk, told by sql.js's write hook
 * (`onFileWrite`, added by scripts/patch-sqljs.mjs). A snapshot then writes those pages into the
 * snapshot file (snapshot-delta.ts) instead of the whole image: at 1,000,000 statements, 64 MiB
 * of journal changes a few percent of a 2.2 GB database.
 *
 * Every write SQLite makes to the database file goes through the in-memory file system's write, so
 * the hook sees them all (a COMMIT writes each changed page there before it returns). Pages are
 * counted in PAGE_BYTES units whatever SQLite's page size: a change smaller than a unit marks the
 * unit, so nothing is missed.
 */

export const PAGE_BYTES = 4096;
/**
 * `take` copies into one buffer kept from snapshot to snapshot, up to this size: fresh memory is
 * paid page by page when first written (measured: 41,000 pages copied in 125 ms into a fresh
 * buffer, 30 ms into a used one, and that copy is a pause for every request).
 */
const KEPT_BUFFER_MAX_BYTES = 256 * 1024 * 1024;

/** The pages written since `take` last ran, with their contents at the moment of taking. */
export interface ChangedPages {
  /** Ascending page numbers (byte offset = page × PAGE_BYTES). */
  pages: Uint32Array;
  /**
   * The pages' bytes, PAGE_BYTES each, in the order of `pages` (the last page of the file may be
   * cut short). Valid until the next `take` (the buffer is reused).
   */
  data: Uint8Array;
  /** The file's size: the snapshot file is cut (or extended) to it. */
  fileBytes: number;
}

const trackers = new Map<string, FileChanges>();

/** The hook sql.js calls after each write to a file of its memory file system. */
export function onFileWrite(name: string, position: number, length: number, contents: Uint8Array): void {
  trackers.get(name)?.noteWrite(position, length, contents);
}

export class FileChanges {
  private marked = new Uint8Array(0);
  private changed: number[] = [];
  /** The file's storage as of the last write (sql.js may move a small file to larger storage as it grows). */
  private contents: Uint8Array | null = null;
  private kept: Uint8Array | null = null;

  /** Follows the file `name` (sql.js's `db.filename`) from now on: writes made before are not changes. */
  constructor(private readonly name: string) {
    trackers.set(name, this);
  }

  get changedPages(): number {
    return this.changed.length;
  }

  noteWrite(position: number, length: number, contents: Uint8Array): void {
    this.contents = contents;
    if (length <= 0) return;
    const last = Math.floor((position + length - 1) / PAGE_BYTES);
    if (last >= this.marked.length) this.grow(last + 1);
    for (let page = Math.floor(position / PAGE_BYTES); page <= last; page++) {
      if (this.marked[page]) continue;
      this.marked[page] = 1;
      this.changed.push(page);
    }
  }

  /**
   * The changed pages of a file of `fileBytes` with their contents now, and a fresh start: later
   * writes are changes after this moment. Pages at or past the end are dropped (the file is cut).
   */
  take(fileBytes: number): ChangedPages {
    const pages = Uint32Array.from(this.changed.filter((page) => page * PAGE_BYTES < fileBytes)).sort();
    const data = this.buffer(pages.length * PAGE_BYTES);
    const contents = this.contents;
    if (pages.length > 0 && (!contents || contents.length < fileBytes)) {
      throw new Error(`the database file is ${contents?.length ?? 0} bytes where ${fileBytes} were expected`);
    }
    pages.forEach((page, i) => {
      const from = page * PAGE_BYTES;
      data.set(contents!.subarray(from, Math.min(from + PAGE_BYTES, fileBytes)), i * PAGE_BYTES);
    });
    this.forget();
    return { pages, data, fileBytes };
  }

  /**
   * A copy of the whole file of `fileBytes`, and a fresh start as `take` makes: the snapshot a data
   * directory starts with, byte for byte the file later changes are changes to. (sql.js's
   * `export()` copies through SQLite's backup, which rewrites the header's change counters: an
   * image it made would not be the file the changed pages belong to.)
   */
  takeWhole(fileBytes: number): Uint8Array {
    const contents = this.contents;
    if (!contents || contents.length < fileBytes) {
      throw new Error(`the database file is ${contents?.length ?? 0} bytes where ${fileBytes} were expected`);
    }
    const image = contents.slice(0, fileBytes);
    this.forget();
    return image;
  }

  /** Counts `pages` as changed again: a snapshot that took them did not reach the disk. */
  markAgain(pages: Iterable<number>): void {
    for (const page of pages) {
      if (page >= this.marked.length) this.grow(page + 1);
      if (this.marked[page]) continue;
      this.marked[page] = 1;
      this.changed.push(page);
    }
  }

  /** Nothing is a change any more (the whole image was just written). */
  forget(): void {
    for (const page of this.changed) this.marked[page] = 0;
    this.changed = [];
  }

  /** Stops following the file (its database is closed). */
  dispose(): void {
    if (trackers.get(this.name) === this) trackers.delete(this.name);
  }

  private buffer(bytes: number): Uint8Array {
    if (this.kept && this.kept.length >= bytes) return this.kept.subarray(0, bytes);
    // Room for the next snapshot to be a little larger without a new buffer.
    const size = Math.ceil((bytes * 1.25) / PAGE_BYTES) * PAGE_BYTES;
    if (size > KEPT_BUFFER_MAX_BYTES) return new Uint8Array(bytes);
    this.kept = new Uint8Array(size);
    return this.kept.subarray(0, bytes);
  }

  private grow(pages: number): void {
    const marked = new Uint8Array(Math.max(pages, this.marked.length * 2, 1024));
    marked.set(this.marked);
    this.marked = marked;
  }
}
