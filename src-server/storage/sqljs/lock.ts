/**
 * One process per data directory: two processes replaying and appending the same journal would
 * corrupt it. The lock is a file holding the owner's pid, created with O_EXCL; a lock whose pid no
 * longer runs (the owner was killed) is taken over.
 */
import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'lore.lock';

export class DataDirLockedError extends Error {
  readonly code = 'data_dir_locked';

  constructor(
    readonly dataDir: string,
    /** The owner's pid; null while the owner is still writing it. */
    readonly pid: number | null,
  ) {
    super(
      `data directory ${dataDir} is in use by ${pid === null ? 'another process' : `process ${pid}`}; ` +
        'stop that process or choose another data directory',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): Promise<void>;
}

export async function lockDataDir(dataDir: string, log: (msg: string) => void): Promise<DataDirLock> {
  const lockPath = path.join(dataDir, LOCK_FILE);
  // Two rounds: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await fsp.open(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        await handle.writeFile(`${process.pid}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return { release: () => releaseLock(lockPath) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await readOwner(lockPath);
    if (owner !== null && isAlive(owner)) throw new DataDirLockedError(dataDir, owner);
    // An empty lock is either being written right now or was left by a crash right after creation.
    if (owner === null && (await ageMs(lockPath)) < FRESH_LOCK_MS) throw new DataDirLockedError(dataDir, null);
    log(`taking over the lock of ${dataDir} from process ${owner ?? '(unreadable)'}, which is no longer running`);
    await fsp.rm(lockPath, { force: true });
  }
  throw new DataDirLockedError(dataDir, await readOwner(lockPath));
}

const FRESH_LOCK_MS = 10_000;

async function ageMs(file: string): Promise<number> {
  try {
    return Date.now() - (await fsp.stat(file)).mtimeMs;
  } catch {
    return Infinity;
  }
}

async function readOwner(lockPath: string): Promise<number | null> {
  try {
    const pid = Number.parseInt(await fsp.readFile(lockPath, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseLock(lockPath: string): Promise<void> {
  // Only remove the lock if it is still ours (a forced takeover may have replaced it).
  if ((await readOwner(lockPath)) === process.pid) await fsp.rm(lockPath, { force: true });
}
