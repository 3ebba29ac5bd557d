/**
 * One process per data directory: two processes replaying and appending the same journal would
 * corrupt it.
 *
 * A pid in a file cannot prove its owner alive: a pid is reused, and a container restarted as
 * PID 1 finds its own pid in the file its previous life left. So the owner also listens on a
 * local socket (a Unix domain socket; a named pipe on Windows) named after the directory, and
 * answers whoever connects with a hello naming itself as a Lore service and its pid. The kernel
 * closes the socket when the process dies, however it dies: a lock whose socket does not answer
 * is taken over, a lock whose socket answers is refused. The lock file (created with O_EXCL, the
 * pid written once the socket listens) settles two services starting at the same moment and
 * tells a person who holds the directory.
 */
import { createHash } from 'node:crypto';
import { constants, promises as fsp, realpathSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const LOCK_FILE = 'lore.lock';

const HELLO_PREFIX = 'lore-lrs data-dir owner pid=';
/** How long a live owner has to answer; it answers at once from its event loop. */
const HELLO_TIMEOUT_MS = 3_000;
/** An empty lock younger than this is being written by a starting owner. */
const FRESH_LOCK_MS = 10_000;

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

/**
 * The owner's socket. Short and outside the directory: a Unix socket path must fit in about 100
 * bytes, which a data directory's path need not; keyed by the directory's real path so that two
 * spellings of one directory meet at one socket.
 */
function ownerSocketPath(dataDir: string): string {
  let real = path.resolve(dataDir);
  try {
    real = realpathSync(real);
  } catch {
    // Not created yet: its resolved path names it.
  }
  const key = createHash('sha256').update(real).digest('hex').slice(0, 24);
  return process.platform === 'win32' ? `\\\\?\\pipe\\lore-lrs-${key}` : path.join(tmpdir(), `lore-lrs-${key}.sock`);
}

export async function lockDataDir(dataDir: string, log: (msg: string) => void): Promise<DataDirLock> {
  const lockPath = path.join(dataDir, LOCK_FILE);
  const socketPath = ownerSocketPath(dataDir);
  // Two rounds: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    let handle;
    try {
      handle = await fsp.open(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (handle) {
      let server: Server | undefined;
      try {
        server = await listenAsOwner(socketPath, dataDir);
        await handle.writeFile(`${process.pid}\n`);
        await handle.sync();
      } catch (err) {
        server?.close();
        await handle.close();
        await fsp.rm(lockPath, { force: true });
        throw err;
      }
      await handle.close();
      const owner = server;
      return { release: () => releaseLock(lockPath, owner) };
    }
    const recorded = await readOwner(lockPath);
    // An empty lock is either being written right now or was left by a crash right after creation.
    if (recorded === null && (await ageMs(lockPath)) < FRESH_LOCK_MS) throw new DataDirLockedError(dataDir, null);
    const live = await askOwner(socketPath);
    if (live !== null) throw new DataDirLockedError(dataDir, live.pid);
    log(
      `taking over the lock of ${dataDir} from process ${recorded ?? '(unreadable)'}, which is no longer a running Lore service` +
        (recorded !== null && isAlive(recorded) ? ' (that pid now belongs to another program)' : ''),
    );
    await fsp.rm(lockPath, { force: true });
  }
  throw new DataDirLockedError(dataDir, await readOwner(lockPath));
}

/** Listens on the owner socket; a socket file a dead owner left is removed first, a live one refuses. */
async function listenAsOwner(socketPath: string, dataDir: string): Promise<Server> {
  for (let attempt = 0; ; attempt++) {
    const server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      socket.end(`${HELLO_PREFIX}${process.pid}\n`);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      });
      // The socket must not keep a process alive that has nothing else to do.
      server.unref();
      return server;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt > 0) throw err;
      const live = await askOwner(socketPath);
      if (live !== null) throw new DataDirLockedError(dataDir, live.pid);
      await fsp.rm(socketPath, { force: true });
    }
  }
}

/** The pid of the live Lore service answering on the socket, or null when nothing alive answers there. */
async function askOwner(socketPath: string): Promise<{ pid: number | null } | null> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    let received = '';
    let settled = false;
    const settle = (value: { pid: number | null } | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(value);
    };
    // Something accepted the connection but said nothing a Lore service says: it holds the
    // socket's name, so it is treated as alive rather than risk two owners.
    const timer = setTimeout(() => settle({ pid: null }), HELLO_TIMEOUT_MS);
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const line = received.split('\n')[0]!;
      if (received.includes('\n') || received.length > 200) {
        const pid = line.startsWith(HELLO_PREFIX) ? Number.parseInt(line.slice(HELLO_PREFIX.length), 10) : NaN;
        settle({ pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null });
      }
    });
    socket.on('end', () => settle(received === '' ? null : { pid: null }));
    // ENOENT, ECONNREFUSED: no process listens there any more.
    socket.on('error', () => settle(null));
  });
}

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

/** Only for the log line: whether the recorded pid now belongs to some other program. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function releaseLock(lockPath: string, server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  // Only remove the lock if it is still ours (a forced takeover may have replaced it).
  if ((await readOwner(lockPath)) === process.pid) await fsp.rm(lockPath, { force: true });
}
