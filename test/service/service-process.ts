/**
 * Starts the real headless service as a child process for tests: the compiled file users run
 * (out/server/main.js, as `npm run serve` does; the tests' global setup builds it when stale).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../../src-server/service/node-flags';

export const ADMIN_TOKEN = 'process-test-admin-token-0123456789';
const MAIN = fileURLToPath(new URL('../../out/server/main.js', import.meta.url));

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** Waits for the process to exit; resolves with its code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnService(dataDir: string, extraArgs: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, MAIN, '--port', '0', '--data-dir', dataDir, ...extraArgs], {
    // Scheduled backups are off unless a test turns them on: a test's data directory is a
    // temporary one, and its default backup folder would be shared with every other test's.
    env: { ...process.env, LRS_ADMIN_TOKEN: ADMIN_TOKEN, LRS_BACKUP_INTERVAL: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output };
}

/**
 * Starts the service and waits until it prints its URL. `env` reaches the child only (for example
 * LRS_RATE_LIMIT=0), so a test never changes the environment of the tests around it.
 */
export async function startService(dataDir: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const { child, exited, output } = spawnService(dataDir, [], env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output()}`)), 30_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`service exited before listening:\n${output()}`));
    });
  });
  return {
    child,
    url,
    exited,
    output,
    admin: (path, init = {}) =>
      fetch(`${url}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...init.headers },
      }),
  };
}

export async function createStoreAndKey(service: ServiceProcess, slug: string): Promise<{ basic: string; token: string }> {
  const store = await service.admin('/stores', { method: 'POST', body: JSON.stringify({ slug, name: slug }) });
  if (store.status !== 201) throw new Error(`store: ${store.status} ${await store.text()}`);
  const key = await service.admin(`/stores/${slug}/keys`, { method: 'POST', body: JSON.stringify({ name: 'crash test' }) });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`);
  return (await key.json()) as { basic: string; token: string };
}

export function xapiHeaders(basic: string, version = '1.0.3'): Record<string, string> {
  return { authorization: `Basic ${basic}`, 'x-experience-api-version': version, 'content-type': 'application/json' };
}
