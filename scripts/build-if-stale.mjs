/**
 * Builds what the service serves (the web console at /admin/), what the desktop app runs
 * (out/main, out/preload, out/renderer) and the headless service itself (out/server/main.js, which
 * `npm run serve` and the process tests run with plain Node) when, and only when, a source they are built from changed
 * since the last build: `npm run serve` runs it first, so the quick start's first command serves
 * everything it prints, and the tests run it once before any test file (vitest.config.ts), so
 * any test file passes alone on a fresh clone.
 *
 * Stale is decided by a hash of the inputs' paths and contents, kept in out/.build-stamp. Two
 * callers at once (two terminals, two test workers) build once: the first takes a lock directory,
 * the other waits for it and finds the stamp fresh.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, promises as fsp, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Everything the two builds read: the three processes' sources and the builds' configuration. */
const INPUTS = ['src-main', 'src-renderer', 'src-server', 'resources', 'electron.vite.config.ts', 'vite.server.config.ts', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.node.json', 'tsconfig.web.json'];
const STAMP = 'out/.build-stamp';
const LOCK = 'out.build-lock';
/** A lock older than this was left by a build that died; a real build takes well under it. */
const STALE_LOCK_MS = 10 * 60_000;

function listFiles(root, entry) {
  const full = path.join(root, entry);
  let stats;
  try {
    stats = statSync(full);
  } catch {
    return [];
  }
  if (!stats.isDirectory()) return [entry];
  return readdirSync(full)
    .sort()
    .flatMap((name) => listFiles(root, path.join(entry, name)));
}

/** The hash of every input's path and bytes. */
export function inputsHash(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of INPUTS.flatMap((entry) => listFiles(root, entry))) {
    hash.update(file.split(path.sep).join('/')).update('\0').update(readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

function builtHash(root) {
  try {
    return readFileSync(path.join(root, STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

async function takeLock(root, log) {
  const lock = path.join(root, LOCK);
  for (let waitedMs = 0; ; waitedMs += 500) {
    try {
      mkdirSync(lock);
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (waitedMs === 0) log('waiting for another build of the console to finish…');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Builds out/ if its inputs changed since the last build; resolves with whether it built. */
export async function buildIfStale({ root = ROOT, log = (message) => console.error(message) } = {}) {
  const wanted = inputsHash(root);
  if (builtHash(root) === wanted) return false;
  const release = await takeLock(root, log);
  try {
    // Another caller may have built while this one waited.
    if (builtHash(root) === wanted) return false;
    log('Building the service, the web console and the desktop app (first start after a change; later starts reuse it)…');
    await fsp.rm(path.join(root, STAMP), { force: true });
    const run = (script, args) => promisify(execFile)(process.execPath, [path.join(root, script), ...args], { cwd: root, timeout: 10 * 60_000 });
    await run('node_modules/electron-vite/bin/electron-vite.js', ['build', '--logLevel', 'warn']);
    await run('node_modules/vite/bin/vite.js', ['build', '--config', 'vite.server.config.ts', '--logLevel', 'warn']);
    await fsp.writeFile(path.join(root, STAMP), `${wanted}\n`);
    return true;
  } finally {
    release();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildIfStale().catch((error) => {
    console.error(`The build failed: ${error.stderr || error.message}`);
    process.exit(1);
  });
}
