/** The data-directory commands (`npm run backup|restore|repair|check-data`) run as the README says, and scratch folders for tests. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN } from './service-process';

const SCRIPTS = fileURLToPath(new URL('../../scripts/', import.meta.url));

/** Runs scripts/<name>.ts as `npm run <name>` would; resolves with its exit code and everything it printed. */
export function runScript(name: 'backup' | 'restore' | 'repair' | 'check-data', args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(SCRIPTS, `${name}.ts`), ...args], {
    env: { ...process.env, LRS_ADMIN_TOKEN: ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

/** A new temporary folder, removed by `cleanups` (run them after each test). */
export function scratchDir(prefix: string, cleanups: Array<() => unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
