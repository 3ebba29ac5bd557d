/**
 * `npm start` (scripts/start-desktop.mjs), run as the user runs it: a child Node process.
 * Where Electron cannot start it must say so in one plain sentence and point at the web console.
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/start-desktop.mjs', import.meta.url));
const MESSAGE =
  'The Lore desktop app cannot start here (Electron is not installed on this machine). Run the service with ' +
  '`npm run serve` and open the web console at http://127.0.0.1:8411/admin/.';

function start(scriptPath: string, env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete childEnv[key];
  return new Promise((resolve) => {
    execFile(process.execPath, [scriptPath], { env: childEnv, timeout: 15_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'lore-start-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A project copy whose "Electron" is a shell script that records how it was started. */
function fakeProject(name: string, electronBody: string): { root: string; script: string; calls: string } {
  const root = join(work, name);
  mkdirSync(join(root, 'scripts'), { recursive: true });
  mkdirSync(join(root, 'node_modules', 'electron', 'dist'), { recursive: true });
  mkdirSync(join(root, 'out', 'main'), { recursive: true });
  copyFileSync(script, join(root, 'scripts', 'start-desktop.mjs'));
  writeFileSync(join(root, 'out', 'main', 'index.js'), '');
  writeFileSync(join(root, 'node_modules', 'electron', 'path.txt'), 'electron');
  const calls = join(root, 'calls.txt');
  const binary = join(root, 'node_modules', 'electron', 'dist', 'electron');
  writeFileSync(binary, `#!/bin/sh\necho "$@" > '${calls}'\n${electronBody}\n`);
  chmodSync(binary, 0o755);
  return { root, script: join(root, 'scripts', 'start-desktop.mjs'), calls };
}

describe('npm start', () => {
  it('says plainly that the desktop app cannot start where Electron is not installed (this machine)', async () => {
    const result = await start(script, { ELECTRON_OVERRIDE_DIST_PATH: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(MESSAGE);
  });

  it('gives the same message when ELECTRON_OVERRIDE_DIST_PATH points where no binary is', async () => {
    const result = await start(script, { ELECTRON_OVERRIDE_DIST_PATH: join(work, 'nothing-here') });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(MESSAGE);
  });

  it('says there is no display on Linux without X11 or Wayland, with the same way out', async () => {
    if (process.platform !== 'linux') return;
    const project = fakeProject('no-display', 'exit 0');
    const result = await start(project.script, { DISPLAY: undefined, WAYLAND_DISPLAY: undefined, ELECTRON_OVERRIDE_DIST_PATH: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'The Lore desktop app cannot start here (no graphical display: neither DISPLAY nor WAYLAND_DISPLAY is set). ' +
        'Run the service with `npm run serve` and open the web console at http://127.0.0.1:8411/admin/.',
    );
  });

  it('starts Electron on the project when it is installed and a display exists', async () => {
    const project = fakeProject('ok', 'exit 0');
    const result = await start(project.script, { DISPLAY: ':99', ELECTRON_OVERRIDE_DIST_PATH: undefined });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(project.calls, 'utf8').trim()).toBe(project.root);
  });

  it('says the system libraries are missing when the binary cannot be loaded (exit 127)', async () => {
    const project = fakeProject('no-libs', 'exit 127');
    const result = await start(project.script, { DISPLAY: ':99', ELECTRON_OVERRIDE_DIST_PATH: undefined });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^The Lore desktop app cannot start here \(Electron is installed but its system libraries are missing\)\. Run the service with `npm run serve`/);
  });
});
