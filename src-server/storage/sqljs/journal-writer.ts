/**
 * Group commit over the journal files. Records are appended to an in-memory batch; one drain loop
 * writes the whole batch with one write and one fdatasync, then resolves every caller waiting on
 * it. Records that arrive while a flush is under way form the next batch, so under load the
 * number of fsyncs follows the disk's pace, not the request rate; an idle loop starts at the end
 * of the event loop's turn (kickSoon), so the records appended in one turn share a batch.
 *
 * A failed write or fdatasync rejects every waiting batch with StorageUnavailableError, drops
 * their records and stops the writer for good: the storage reloads its durable state from disk
 * (see `durableSizes`) and starts a new writer, so nothing a caller was told failed survives.
 */
import { StorageUnavailableError } from '../errors';
import type { StorageFileHandle, StorageFs } from './fs';

interface Batch {
  chunks: Buffer[];
  bytes: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

function newBatch(chunks: Buffer[] = [], bytes = 0): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers that await the promise still see the rejection; one nobody awaits is not "unhandled".
  promise.catch(() => {});
  return { chunks, bytes, promise, resolve, reject };
}

interface Segment {
  path: string;
  handle: StorageFileHandle | null;
  /** Bytes durably in the file. */
  size: number;
  /** The file may not exist yet: its directory entry needs an fsync of the directory. */
  create: boolean;
  pending: Batch;
  inflightBytes: number;
  /** Set once the writer has moved on to a newer file: resolves when this one is durable and closed. */
  retired: Batch | null;
}

export interface JournalWriterOptions {
  fs: StorageFs;
  dir: string;
  /** The file to append to, with its durable size (0 and `exists: false` for a new file). */
  path: string;
  size: number;
  exists: boolean;
  /** Called after each successful flush (the storage schedules snapshots from here). */
  onFlushed: () => void;
  /** Called once, when a flush fails. */
  onFailed: (failure: StorageUnavailableError) => void;
}

export class JournalWriter {
  private readonly fs: StorageFs;
  private readonly dir: string;
  private readonly onFlushed: () => void;
  private readonly onFailed: (failure: StorageUnavailableError) => void;
  private segments: Segment[];
  private running = false;
  private kickScheduled = false;
  private failure: StorageUnavailableError | null = null;
  /** The batch holding the newest record: durable when this resolves. */
  private last: Promise<void> = Promise.resolve();

  constructor(options: JournalWriterOptions) {
    this.fs = options.fs;
    this.dir = options.dir;
    this.onFlushed = options.onFlushed;
    this.onFailed = options.onFailed;
    this.segments = [newSegment(options.path, options.size, !options.exists)];
  }

  /** Why this writer stopped, or null while it works. */
  get failed(): StorageUnavailableError | null {
    return this.failure;
  }

  /** Each file's durable size: bytes past it may hold records whose callers were told they failed. */
  durableSizes(): Map<string, number> {
    return new Map(this.segments.map((seg) => [seg.path, seg.size]));
  }

  get currentPath(): string {
    return this.current().path;
  }

  /** Bytes in the current journal file, including records not yet flushed. */
  get currentBytes(): number {
    const seg = this.current();
    return seg.size + seg.inflightBytes + seg.pending.bytes;
  }

  /** Queues one encoded record; resolves once it is on disk. */
  append(record: Buffer): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const batch = this.current().pending;
    batch.chunks.push(record);
    batch.bytes += record.length;
    this.last = batch.promise;
    this.kickSoon();
    return batch.promise;
  }

  /** Resolves once every record appended so far is on disk. */
  sync(): Promise<void> {
    return this.failure ? Promise.reject(this.failure) : this.last;
  }

  /**
   * Sends later records to a new file. Resolves once every record of the previous files is durable
   * and their handles are closed, so they can be deleted.
   */
  rotate(path: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const previous = this.current();
    previous.retired = newBatch();
    this.segments.push(newSegment(path, 0, true));
    this.kick();
    return previous.retired.promise;
  }

  /** Waits for queued records (when the disk allows) and closes the files. */
  async close(): Promise<void> {
    await this.sync().catch(() => {});
    for (const seg of this.segments) {
      const handle = seg.handle;
      seg.handle = null;
      await handle?.close().catch(() => {});
    }
  }

  private current(): Segment {
    return this.segments[this.segments.length - 1]!;
  }

  /**
   * Starts the drain once the current turn of the event loop is over: the records appended by the
   * requests this turn handles go out in one write and one fdatasync. Started at the first append,
   * that record would go alone and the rest wait for its fdatasync before theirs, while its
   * caller could not be answered before the turn ends anyway.
   */
  private kickSoon(): void {
    if (this.running || this.failure || this.kickScheduled) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      this.kick();
    });
  }

  private kick(): void {
    if (this.running || this.failure) return;
    this.running = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const seg = this.segments[0]!;
        if (seg.pending.bytes === 0) {
          if (this.segments.length === 1) return;
          const handle = seg.handle;
          seg.handle = null;
          // Everything in it is already durable: a failing close cannot lose anything.
          await handle?.close().catch(() => {});
          this.segments.shift();
          seg.retired?.resolve();
          continue;
        }
        const batch = seg.pending;
        seg.pending = newBatch();
        seg.inflightBytes = batch.bytes;
        try {
          if (!seg.handle) {
            seg.handle = await this.fs.open(seg.path, { truncate: false });
            // Drops whatever a failed write may have left past the last durable record.
            await seg.handle.truncate(seg.size);
            if (seg.create) {
              await this.fs.syncDir(this.dir);
              seg.create = false;
            }
          }
          const data = batch.chunks.length === 1 ? batch.chunks[0]! : Buffer.concat(batch.chunks, batch.bytes);
          await seg.handle.write(data, seg.size);
          await seg.handle.datasync();
        } catch (err) {
          this.fail(err, seg, batch);
          return;
        }
        seg.inflightBytes = 0;
        seg.size += batch.bytes;
        batch.resolve();
        this.onFlushed();
      }
    } finally {
      this.running = false;
    }
  }

  private fail(err: unknown, seg: Segment, inflight: Batch): void {
    const reason = err instanceof Error ? err.message : String(err);
    const failure = new StorageUnavailableError(`cannot write the journal (${reason})`, { cause: err });
    this.failure = failure;
    const handle = seg.handle;
    seg.handle = null;
    handle?.close().catch(() => {});
    seg.inflightBytes = 0;
    const rejected: Batch[] = [inflight];
    for (const s of this.segments) {
      rejected.push(s.pending);
      s.pending = newBatch();
      if (s.retired) rejected.push(s.retired);
      s.retired = null;
    }
    this.onFailed(failure);
    for (const batch of rejected) batch.reject(failure);
  }
}

function newSegment(path: string, size: number, create: boolean): Segment {
  return { path, handle: null, size, create, pending: newBatch(), inflightBytes: 0, retired: null };
}
