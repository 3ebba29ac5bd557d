/**
 * The real service as a child process for the robustness suites: the same launcher the durability
 * tests use (`node out/server/main.js --port 0 --data-dir …`), plus hard kills,
 * graceful stops and the child's resident memory.
 */
import { readFileSync } from 'node:fs';
import type { ServiceProcess } from '../../service/service-process';

export {
  ADMIN_TOKEN,
  createStoreAndKey,
  startService,
  xapiHeaders,
  type ServiceProcess,
} from '../../service/service-process';

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
