/**
 * Which pages of a database file changed since the snapshot on disk, told by sql.js's write hooks
 * (`beforeFileWrite` and `onFileWrite`, added by scripts/patch-sqljs.mjs). A snapshot then writes
 * those pages into the snapshot file (snapshot-pages.ts) instead of the whole image: at 1,000,000
 * statements, 64 MiB of journal changes a few percent of a 2.2 GB database.
 *
 * Every write SQLite makes to the database file goes through the in-memory file system's write, so
 * the hooks see them all (a COMMIT writes each changed page there before it returns). Pages are
 * counted in PAGE_BYTES units whatever SQLite's page size: a change smaller than a unit marks the
 * unit, so nothing is missed.
 *
 * The file is never cut while the storage runs (no VACUUM, no auto_vacuum; a rolled-back
 * transaction cuts it back only to its size before that transaction): sql.js resizes a file
 * without the hooks, so a cut below frozen pages followed by new writes would go unseen.
 *
 * A snapshot does not copy its pages when it starts (a copy of 170 MB of pages scattered over
 * gigabytes held every request for half a second, measured at 1,000,000 statements). It freezes
 * them (`take`): they are read from the live file as the snapshot writes them, and a write to one
 * of them before then first keeps its frozen contents aside (copy on write).
 */

export const PAGE_BYTES = 4096;

/** Pages of a database file as they were at one moment, read a run at a time. */
export interface PageSource {
  /** Ascending page numbers (byte offset = page × PAGE_BYTES). */
  readonly pages: Uint32Array;
  /** The file's size at that moment: the snapshot file is cut (or extended) to it. */
  readonly fileBytes: number;
  /**
   * Copies the pages at indexes [from, to) of `pages` into `into`, PAGE_BYTES each (the last page
   * of the file may be cut short: the rest of its slot is left as it was).
   */
  copy(from: number, to: number, into: Uint8Array): void;
}

/** Pages already in memory, PAGE_BYTES each in the order of `pages`: a pages file read back. */
export function pagesInMemory(pages: Uint32Array, data: Uint8Array, fileBytes: number): PageSource {
  return {
    pages,
    fileBytes,
    copy: (from, to, into) => into.set(data.subarray(from * PAGE_BYTES, to * PAGE_BYTES)),
  };
}

const trackers = new Map<string, FileChanges>();

/** The hook sql.js calls before each write to a file of its memory file system. */
export function beforeFileWrite(name: string, position: number, length: number, contents: Uint8Array | undefined): void {
  trackers.get(name)?.beforeWrite(position, length, contents);
}

/** The hook sql.js calls after each write to a file of its memory file system. */
export function onFileWrite(name: string, position: number, length: number, contents: Uint8Array): void {
  trackers.get(name)?.noteWrite(position, length, contents);
}

function pageRange(position: number, length: number): [first: number, last: number] {
  return [Math.floor(position / PAGE_BYTES), Math.floor((position + length - 1) / PAGE_BYTES)];
}

export class FileChanges {
  private marked = new Uint8Array(0);
  private changed: number[] = [];
  /** The file's storage as of the last write (sql.js may move a small file to larger storage as it grows). */
  private contents: Uint8Array | null = null;
  private frozen: FrozenPages | null = null;

  /** Follows the file `name` (sql.js's `db.filename`) from now on: writes made before are not changes. */
  constructor(private readonly name: string) {
    trackers.set(name, this);
  }

  get changedPages(): number {
    return this.changed.length;
  }

  beforeWrite(position: number, length: number, contents: Uint8Array | undefined): void {
    if (this.frozen && contents && length > 0) this.frozen.preserve(position, length, contents);
  }

  noteWrite(position: number, length: number, contents: Uint8Array): void {
    this.contents = contents;
    if (length <= 0) return;
    const [first, last] = pageRange(position, length);
    for (let page = first; page <= last; page++) this.mark(page);
  }

  /**
   * The changed pages of a file of `fileBytes` as they are now, frozen until `release`, and a fresh
   * start: later writes are changes after this moment. Pages at or past the end are dropped (the
   * file is cut). One snapshot at a time: the previous one must be released first.
   */
  take(fileBytes: number): PageSource {
    if (this.frozen) throw new Error('the pages of the previous snapshot are still frozen');
    const pages = Uint32Array.from(this.changed.filter((page) => page * PAGE_BYTES < fileBytes)).sort();
    if (pages.length > 0) this.storageOf(fileBytes);
    this.forget();
    this.frozen = new FrozenPages(pages, fileBytes, () => this.contents!);
    return this.frozen;
  }

  /** Frozen pages whose contents were kept aside because a write came first. */
  get keptFrozenPages(): number {
    return this.frozen?.keptPages ?? 0;
  }

  /** The snapshot that took the frozen pages is over: they are read no more. */
  release(): void {
    this.frozen = null;
  }

  /**
   * Every page of the file of `fileBytes`, frozen as `take` freezes the changed ones, and a fresh
   * start: the snapshot a data directory starts with, byte for byte the file later changes are
   * changes to, read as it is written instead of copied whole at once (a copy of a large file holds
   * every request while it is made). (sql.js's `export()` copies through SQLite's backup, which
   * rewrites the header's change counters: an image it made would not be the file the changed
   * pages belong to.)
   */
  takeWhole(fileBytes: number): PageSource {
    if (this.frozen) throw new Error('the pages of the previous snapshot are still frozen');
    this.storageOf(fileBytes);
    const pages = new Uint32Array(Math.ceil(fileBytes / PAGE_BYTES));
    for (let page = 0; page < pages.length; page++) pages[page] = page;
    this.forget();
    this.frozen = new FrozenPages(pages, fileBytes, () => this.contents!);
    return this.frozen;
  }

  /** Counts `pages` as changed again: a snapshot that took them did not reach the disk. */
  markAgain(pages: Iterable<number>): void {
    for (const page of pages) this.mark(page);
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

  /** The file's storage, which must hold `fileBytes` (what SQLite says the file is). */
  private storageOf(fileBytes: number): Uint8Array {
    if (!this.contents || this.contents.length < fileBytes) {
      throw new Error(`the database file is ${this.contents?.length ?? 0} bytes where ${fileBytes} were expected`);
    }
    return this.contents;
  }

  private mark(page: number): void {
    if (page >= this.marked.length) {
      const marked = new Uint8Array(Math.max(page + 1, this.marked.length * 2, 1024));
      marked.set(this.marked);
      this.marked = marked;
    }
    if (this.marked[page]) return;
    this.marked[page] = 1;
    this.changed.push(page);
  }
}

/** A snapshot's pages: read from the live file, or from the copy kept when a write came first. */
class FrozenPages implements PageSource {
  private readonly frozen: Uint8Array;
  private readonly kept = new Map<number, Uint8Array>();

  constructor(
    readonly pages: Uint32Array,
    readonly fileBytes: number,
    private readonly live: () => Uint8Array,
  ) {
    this.frozen = new Uint8Array(pages.length > 0 ? pages[pages.length - 1]! + 1 : 0);
    for (const page of pages) this.frozen[page] = 1;
  }

  get keptPages(): number {
    return this.kept.size;
  }

  /** Before a write over bytes of frozen pages not kept yet: keeps their contents as frozen. */
  preserve(position: number, length: number, contents: Uint8Array): void {
    const [first, last] = pageRange(position, length);
    for (let page = first; page <= last && page < this.frozen.length; page++) {
      if (!this.frozen[page] || this.kept.has(page)) continue;
      const from = page * PAGE_BYTES;
      this.kept.set(page, contents.slice(from, Math.min(from + PAGE_BYTES, this.fileBytes)));
    }
  }

  copy(from: number, to: number, into: Uint8Array): void {
    const live = this.live();
    for (let i = from; i < to; i++) {
      const page = this.pages[i]!;
      const start = page * PAGE_BYTES;
      const end = Math.min(start + PAGE_BYTES, this.fileBytes);
      const kept = this.kept.get(page);
      if (!kept && live.length < end) throw new Error(`the database file shrank below page ${page} while a snapshot read it`);
      into.set(kept ?? live.subarray(start, end), (i - from) * PAGE_BYTES);
    }
  }
}
