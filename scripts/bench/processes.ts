/**
 * The processes a benchmark run starts: the real service from the production build
 * (out/server/main.js, `npm run build:server`) and the raw Fastify baseline. Both listen on
 * 127.0.0.1 with port 0; both are stopped by the run (SIGTERM, then SIGKILL after a bound).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_NODE_FLAGS } from '../../src-server/service/node-flags';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SERVICE_MAIN = join(ROOT, 'out/server/main.js');
const BASELINE = join(ROOT, 'scripts/bench/baseline-server.ts');
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

export interface LogLine {
  at: number;
  text: string;
}

export interface Child {
  child: ChildProcess;
  url: string;
  /** performance.now() when spawned, and when it printed its listen line. */
  spawnedAt: number;
  listeningAt: number;
  /** stderr lines with their arrival time (the service logs snapshots there). */
  log: LogLine[];
  stop(): Promise<void>;
}

function startChild(args: string[], env: Record<string, string>, what: string, timeoutMs: number): Promise<Child> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: LogLine[] = [];
  let stdout = '';
  let stderrTail = '';
  // A line may arrive in two chunks: it is logged whole, when its end arrives.
  let partialLine = '';
  let listening = false;
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
    const at = performance.now();
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop()!;
    for (const text of lines) if (text.trim()) log.push({ at, text });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not listen within ${timeoutMs} ms:\n${stdout}${stderrTail}`));
    }, timeoutMs);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${what} exited before listening:\n${stdout}${stderrTail}`));
    });
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match && !listening) {
        listening = true;
        clearTimeout(timer);
        const listeningAt = performance.now();
        resolve({
          child,
          url: match[1]!,
          spawnedAt,
          listeningAt,
          log,
          stop: async () => {
            if (child.exitCode !== null || child.signalCode !== null) return;
            child.kill('SIGTERM');
            // A snapshot at 1M statements takes seconds; a hung stop must not hang the benchmark.
            const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
            await exited;
            clearTimeout(killer);
          },
        });
      }
    });
  });
}

/**
 * When the service wrote its snapshots, from its log ("snapshot written: …, N ms"): each as
 * [start, end] on this process's performance.now() clock, the end being when the line arrived.
 */
export function snapshotIntervals(log: readonly LogLine[]): Array<[number, number]> {
  const intervals: Array<[number, number]> = [];
  for (const line of log) {
    const match = /snapshot written: .*, (\d+) ms$/.exec(line.text);
    if (match) intervals.push([line.at - Number(match[1]), line.at]);
  }
  return intervals;
}

/** How many ms of [from, to] fall within the intervals. */
export function overlapMs(from: number, to: number, intervals: ReadonlyArray<readonly [number, number]>): number {
  let total = 0;
  for (const [start, end] of intervals) total += Math.max(0, Math.min(to, end) - Math.max(from, start));
  return total;
}

export interface ServiceOptions {
  dataDir: string;
  snapshotThresholdBytes?: number;
  /** Extra Node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Environment of this run beyond the bench's own (scheduled backups, say). */
  env?: Record<string, string>;
  /** Another build of the service (its out/server/main.js), to compare with this one on the same data. */
  main?: string;
}

export function startServiceProcess(options: ServiceOptions): Promise<Child> {
  // One API key sends all the load: the per-key rate limit (200/s by default) is turned off, as a
  // deployment that expects this traffic would (LRS_RATE_LIMIT=0); the bench measures capacity.
  // Scheduled backups are off: the bench measures a backup's pause on its own (backup case).
  const env: Record<string, string> = { LRS_ADMIN_TOKEN: ADMIN_TOKEN, LRS_RATE_LIMIT: '0', LRS_BACKUP_INTERVAL: 'off' };
  if (options.snapshotThresholdBytes) env.LORE_SNAPSHOT_THRESHOLD_BYTES = String(options.snapshotThresholdBytes);
  Object.assign(env, options.env);
  // The flags every launcher of the service uses (src-server/service/node-flags.ts), then the run's own.
  const args = [...SERVICE_NODE_FLAGS, ...(options.nodeFlags ?? []), options.main ?? SERVICE_MAIN, '--port', '0', '--host', '127.0.0.1', '--data-dir', options.dataDir];
  // Loading 1M statements takes a while; the limit only guards against a hang.
  return startChild(args, env, 'the service', 300_000);
}

export function startBaselineProcess(): Promise<Child> {
  return startChild(['--import', 'tsx', BASELINE], {}, 'the baseline server', 30_000);
}

/** Resident set size and its peak (Linux /proc), in bytes; null elsewhere. */
export function memoryOf(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  } catch {
    return null;
  }
}

export function dirSize(dir: string): { total: number; files: Record<string, number> } {
  const files: Record<string, number> = {};
  let total = 0;
  for (const name of readdirSync(dir)) {
    const size = statSync(join(dir, name)).size;
    files[name] = size;
    total += size;
  }
  return { total, files };
}
