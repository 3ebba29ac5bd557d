#!/usr/bin/env node
// `npm start`: launches the Lore desktop app. Electron's npm package only downloads its binary at
// install time (and `require('electron')` tries to download it again when it is missing), so
// this checks for the binary on disk first. Where the desktop app cannot start, it says so
// plainly and tells the user how to run the service with its web console instead.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const WEB_CONSOLE_HINT =
  'Run the service with `npm run serve` and open the web console at http://127.0.0.1:8411/admin/.';

export function cannotStartMessage(reason) {
  return `The Lore desktop app cannot start here (${reason}). ${WEB_CONSOLE_HINT}`;
}

/**
 * The Electron executable as the `electron` package would run it (its index.js: dist/ + the
 * platform path in path.txt, or $ELECTRON_OVERRIDE_DIST_PATH), without downloading anything.
 * Returns { path } or { reason }.
 */
export function findElectronBinary(projectRoot, env = process.env) {
  const packageDir = join(projectRoot, 'node_modules', 'electron');
  const pathFile = join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const path = join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron');
    return existsSync(path) ? { path } : { reason: 'Electron is not installed on this machine' };
  }
  if (!relative) return { reason: 'Electron is not installed on this machine' };
  const path = join(packageDir, 'dist', relative);
  return existsSync(path) ? { path } : { reason: 'Electron is not installed on this machine' };
}

/** Linux without X11 or Wayland has nowhere to show a window. */
export function displayProblem(platform = process.platform, env = process.env) {
  if (platform !== 'linux') return undefined;
  return env.DISPLAY || env.WAYLAND_DISPLAY ? undefined : 'no graphical display: neither DISPLAY nor WAYLAND_DISPLAY is set';
}

function fail(reason) {
  console.error(cannotStartMessage(reason));
  process.exit(1);
}

function run() {
  const electron = findElectronBinary(root);
  if (!electron.path) return fail(electron.reason);
  const display = displayProblem();
  if (display) return fail(display);

  if (!existsSync(join(root, 'out', 'main', 'index.js'))) {
    console.error('Building the desktop app first (electron-vite build)…');
    const build = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }

  const child = spawn(electron.path, [root, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  child.on('error', (error) => fail(`Electron could not be started: ${error.message}`));
  child.on('exit', (code, signal) => {
    // 127: the dynamic loader found the binary but not its shared libraries.
    if (code === 127) return fail('Electron is installed but its system libraries are missing');
    process.exit(signal ? 1 : (code ?? 0));
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) run();
