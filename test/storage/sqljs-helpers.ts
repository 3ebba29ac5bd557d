/** Temp data directories, simulated crashes and an instrumented file layer for the sql.js tests. */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { nodeStorageFs } from '../../src-server/storage/sqljs/fs';
import type { StorageFs } from '../../src-server/storage/sqljs/fs';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { SqljsStorage, SqljsStorageOptions } from '../../src-server/storage/sqljs/sqljs-storage';

const dirs: string[] = [];

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lore-storage-'));
  dirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * What a crash (kill -9) would leave right now: a copy of the data directory's files without the
 * lock. Every write that resolved was fsynced, so the copy holds it; the copy is taken in one
 * synchronous-looking step between two awaits of the storage, i.e. at an arbitrary point of its
 * background work (a snapshot half written, a journal half rotated).
 */
export async function crashCopy(dataDir: string): Promise<string> {
  const copy = await tempDir();
  await cp(dataDir, copy, { recursive: true, filter: (src) => path.basename(src) !== 'lore.lock' });
  return copy;
}

export async function journalFiles(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir))
    .filter((name) => /^journal-\d+\.log$/.test(name))
    .sort()
    .map((name) => path.join(dataDir, name));
}

export async function openIn(dataDir: string, options: Partial<SqljsStorageOptions> = {}): Promise<SqljsStorage> {
  return openSqljsStorage({ dataDir, ...options });
}

/** A file layer over the real one that counts fdatasyncs, can hold them, and can fail like a sick disk. */
export function instrumentedFs() {
  const control = {
    datasyncs: 0,
    /** When set, every write, truncate and fdatasync throws it. */
    failure: null as NodeJS.ErrnoException | null,
    /** When set, fdatasync throws it after the write went through (the bytes may be in the file). */
    syncFailure: null as NodeJS.ErrnoException | null,
    /** When set, fdatasync waits for it. */
    gate: null as Promise<void> | null,
  };
  const check = () => {
    if (control.failure) throw control.failure;
  };
  const fs: StorageFs = {
    ...nodeStorageFs,
    async open(file, options) {
      check();
      const handle = await nodeStorageFs.open(file, options);
      return {
        async write(data, position) {
          check();
          await handle.write(data, position);
        },
        async datasync() {
          if (control.gate) await control.gate;
          check();
          if (control.syncFailure) throw control.syncFailure;
          control.datasyncs++;
          await handle.datasync();
        },
        async truncate(length) {
          check();
          await handle.truncate(length);
        },
        close: () => handle.close(),
      };
    },
  };
  return { fs, control };
}

export function ioError(code: 'EIO' | 'ENOSPC'): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: simulated ${code === 'EIO' ? 'i/o error' : 'no space left on device'}`);
  err.code = code;
  return err;
}
