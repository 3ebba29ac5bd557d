/**
 * The real service as a child process for the robustness suites: the same launcher the durability
 * tests use (`node --import tsx src-server/main.ts --port 0 --data-dir …`), plus hard kills,
 * graceful stops and the child's resident memory.
 */
import { readFileSync } from 'node:fs';
import { ADMIN_TOKEN, spawnService, type ServiceProcess } from '../../service/service-process';

export { ADMIN_TOKEN, createStoreAndKey, type ServiceProcess } from '../../service/service-process';

/**
 * Starts the service and waits until it prints its URL. `env` reaches the child only (for example
 * LRS_RATE_LIMIT=0), so a suite never changes the environment of the tests around it.
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

export function isRunning(service: ServiceProcess): boolean {
  return service.child.exitCode === null && service.child.signalCode === null;
}

/** kill -9: nothing after it runs (no flush, no snapshot, the lock file stays). */
export async function killHard(service: ServiceProcess): Promise<void> {
  if (isRunning(service)) service.child.kill('SIGKILL');
  await service.exited;
}

export async function stopGracefully(service: ServiceProcess): Promise<number | null> {
  if (isRunning(service)) service.child.kill('SIGTERM');
  return (await service.exited).code;
}

/** Resident set size of a process in bytes (Linux /proc), or null where it cannot be read. */
export function rssBytes(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function xapiHeaders(basic: string, version = '1.0.3'): Record<string, string> {
  return { authorization: `Basic ${basic}`, 'x-experience-api-version': version, 'content-type': 'application/json' };
}
