/**
 * The few file operations the durable layer needs, behind an interface so tests can count fsyncs
 * and inject failures (disk full, EIO) without touching the real disk's behaviour.
 */
import { constants, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface StorageFileHandle {
  /** Writes every byte of `data` at `position`. */
  write(data: Uint8Array, position: number): Promise<void>;
  /** fdatasync: the data and the size that reaches it are on disk when this resolves. */
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Told as a file is read: the first `readBytes` of `into` (the whole file's buffer) are read. It
 * runs while the next chunk is being read (by libuv's thread pool), so work on the bytes read so
 * far overlaps the reading of the rest. It must not throw.
 */
export type ReadProgress = (into: Uint8Array, readBytes: number) => void;

export interface StorageFs {
  mkdir(dir: string): Promise<void>;
  /**
   * The whole file, or null when it does not exist. `storageFor` may give the buffer to read it
   * into (at least `size` bytes; the answer is then a view of its start).
   */
  readFile(path: string, storageFor?: (size: number) => Uint8Array | undefined, onRead?: ReadProgress): Promise<Uint8Array | null>;
  readdir(dir: string): Promise<string[]>;
  /** Opens for writing at explicit positions, creating the file when missing. */
  open(path: string, options: { truncate: boolean }): Promise<StorageFileHandle>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; a missing file is not an error. */
  unlink(path: string): Promise<void>;
  /** Makes renames, creations and removals inside `dir` durable. */
  syncDir(dir: string): Promise<void>;
}

/** Node's readFile refuses files over 2 GiB, and one write call takes less; a snapshot can be larger (capacity.ts). */
const READ_CHUNK_BYTES = 256 * 1024 * 1024;
const WRITE_CHUNK_BYTES = 256 * 1024 * 1024;
/**
 * Chunks of a read whose progress is followed (ReadProgress): small enough that the work on one
 * overlaps the reading of the next from early on, large enough that the calls cost nothing.
 */
const PROGRESS_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * The whole file, read in chunks of `chunkBytes` into one buffer, so it may pass 2 GiB; into the
 * buffer `storageFor` gives, when it gives one. `onRead` is told of each chunk while the next one
 * is read.
 */
export async function readWholeFile(
  path: string,
  chunkBytes = READ_CHUNK_BYTES,
  storageFor?: (size: number) => Uint8Array | undefined,
  onRead?: ReadProgress,
): Promise<Uint8Array> {
  const handle = await fsp.open(path, constants.O_RDONLY);
  try {
    const { size } = await handle.stat();
    const given = storageFor?.(size);
    const whole = given && given.length >= size ? given.subarray(0, size) : Buffer.allocUnsafe(size);
    const chunk = onRead ? Math.min(chunkBytes, PROGRESS_CHUNK_BYTES) : chunkBytes;
    const readAt = (at: number) => handle.read(whole, at, Math.min(chunk, size - at), at);
    let done = 0;
    let reading = size > 0 ? readAt(0) : null;
    while (reading) {
      const { bytesRead } = await reading;
      done += bytesRead;
      // bytesRead 0: the file shrank while read, and what is there is the file.
      reading = bytesRead > 0 && done < size ? readAt(done) : null;
      if (bytesRead > 0) onRead?.(whole, done);
    }
    return done === size ? whole : whole.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/** Writes every byte of `data` at `position`, at most `chunkBytes` a call (one call takes less than 2 GiB). */
export async function writeAll(handle: FileHandle, data: Uint8Array, position: number, chunkBytes = WRITE_CHUNK_BYTES): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, Math.min(data.length - done, chunkBytes), position + done);
    done += bytesWritten;
  }
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}

export const nodeStorageFs: StorageFs = {
  async mkdir(dir) {
    await fsp.mkdir(dir, { recursive: true });
  },
  async readFile(path, storageFor, onRead) {
    try {
      return await readWholeFile(path, READ_CHUNK_BYTES, storageFor, onRead);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    }
  },
  readdir(dir) {
    return fsp.readdir(dir);
  },
  async open(path, options) {
    const flags = constants.O_WRONLY | constants.O_CREAT | (options.truncate ? constants.O_TRUNC : 0);
    const handle = await fsp.open(path, flags, 0o644);
    return {
      write: (data, position) => writeAll(handle, data, position),
      datasync: () => handle.datasync(),
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    };
  },
  rename(from, to) {
    return fsp.rename(from, to);
  },
  async unlink(path) {
    try {
      await fsp.unlink(path);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
  },
  async syncDir(dir) {
    // Windows cannot open a directory for fsync; NTFS makes renames durable through its own log.
    if (process.platform === 'win32') return;
    const handle = await fsp.open(dir, constants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/**
 * A large file is flushed as it is written: gigabytes of a snapshot waiting for one fdatasync hold
 * the disk for seconds, and the journal's own fdatasyncs (every acknowledgement) queue behind them.
 */
export const FLUSH_EVERY_BYTES = 64 * 1024 * 1024;

/** Writes `data` from the start of an open file, fdatasyncing along the way (every FLUSH_EVERY_BYTES). */
async function writeFromStart(handle: StorageFileHandle, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.length; at += FLUSH_EVERY_BYTES) {
    await handle.write(data.subarray(at, at + FLUSH_EVERY_BYTES), at);
    if (at + FLUSH_EVERY_BYTES < data.length) await handle.datasync();
  }
}

/** Writes `data` as the whole file and fdatasyncs it (along the way, every FLUSH_EVERY_BYTES). */
export function writeFileDurably(fs: StorageFs, file: string, data: Uint8Array): Promise<void> {
  return changeDurably(fs, file, { truncate: true }, (handle) => writeFromStart(handle, data));
}

/**
 * Replaces `file` as a whole: `temp` is written (`data`, or what `write` puts in the empty file)
 * and fdatasynced, renamed over `file`, and the directory synced. On failure the temp file is
 * removed and `file` is as it was.
 */
export async function replaceFileDurably(
  fs: StorageFs,
  file: string,
  temp: string,
  data: Uint8Array | ((handle: StorageFileHandle) => Promise<void>),
): Promise<void> {
  try {
    await changeDurably(fs, temp, { truncate: true }, data instanceof Uint8Array ? (handle) => writeFromStart(handle, data) : data);
    await fs.rename(temp, file);
    await fs.syncDir(dirname(file));
  } catch (err) {
    await fs.unlink(temp).catch(() => {});
    throw err;
  }
}

/** Cuts the file to `size` bytes and fdatasyncs it. */
export function truncateDurably(fs: StorageFs, file: string, size: number): Promise<void> {
  return changeDurably(fs, file, { truncate: false }, (handle) => handle.truncate(size));
}

/** Opens `file`, lets `change` write to it, fdatasyncs and closes it (closed on failure too). */
export async function changeDurably(
  fs: StorageFs,
  file: string,
  options: { truncate: boolean },
  change: (handle: StorageFileHandle) => Promise<void>,
): Promise<void> {
  const handle = await fs.open(file, options);
  try {
    await change(handle);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
