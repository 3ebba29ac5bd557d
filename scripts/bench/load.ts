/**
 * One load run: autocannon drives `connections` keep-alive connections for `seconds`, each request
 * built by `next()`. Latencies are recorded here (autocannon's own histogram keeps whole
 * milliseconds and has no p95), together with each response's arrival time, so a run can also
 * report the longest gap during which no response arrived (a stall of the service).
 */
import autocannon, { type AutocannonRequest } from 'autocannon';
import { readFileSync } from 'node:fs';

export interface BenchRequest {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  connections: number;
  seconds: number;
  next: () => BenchRequest;
  /** Statements each request carries (for statements/s); 0 for reads. */
  statementsPerRequest?: number;
  /** The server's process id: its CPU time during the run is measured (Linux /proc). */
  serverPid?: number;
  /**
   * Runs on after `seconds` until this says done (checked every 250 ms), for at most
   * `maxSeconds`: e.g. until a snapshot the run caused has been written.
   */
  extendUntil?: { done: () => boolean; maxSeconds: number };
}

export interface LoadResult {
  requests: number;
  seconds: number;
  requestsPerSec: number;
  statementsPerSec: number | null;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  /** The longest time without any response, in ms (includes the run's start). */
  longestGapMs: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  /**
   * The server's CPU time (user + system, all threads) per answered request, in µs, and its CPU
   * use over the run (1 = one core busy). Less sensitive to other load on the machine than
   * throughput: a busy neighbour slows requests down but does not add to their CPU time.
   */
  serverCpuMicrosPerRequest: number | null;
  serverCpuCores: number | null;
}

/**
 * User + system CPU time of a process and of its children it has waited for (so work a service
 * hands to a child process is counted), in µs (Linux /proc; clock ticks of 10 ms), or null.
 */
export function cpuMicros(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10_000;
  } catch {
    return null;
  }
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const arrivals: number[] = [];
  const statusCodes: Record<string, number> = {};
  const started = performance.now();
  const cpuBefore = cpuMicros(options.serverPid);
  return new Promise((resolve, reject) => {
    const request: AutocannonRequest = {
      setupRequest: (base) => {
        const r = options.next();
        return { ...base, method: r.method, path: r.path, headers: { ...r.headers }, body: r.body };
      },
    };
    const extend = options.extendUntil;
    const duration = extend ? Math.max(options.seconds, extend.maxSeconds) : options.seconds;
    const instance = autocannon(
      { url: options.baseUrl, connections: options.connections, duration, timeout: 30, requests: [request] },
      (error, result) => {
        if (error) return reject(error);
        const cpuAfter = cpuMicros(options.serverPid);
        const cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
        const wallMicros = (performance.now() - started) * 1000;
        const sorted = Float64Array.from(latencies).sort();
        let longestGapMs = 0;
        let previous = started;
        for (const at of arrivals) {
          longestGapMs = Math.max(longestGapMs, at - previous);
          previous = at;
        }
        const seconds = result.duration;
        const perRequest = options.statementsPerRequest ?? 0;
        resolve({
          requests: latencies.length,
          seconds,
          requestsPerSec: latencies.length / seconds,
          statementsPerSec: perRequest > 0 ? (latencies.length * perRequest) / seconds : null,
          p50: percentile(sorted, 50),
          p95: percentile(sorted, 95),
          p99: percentile(sorted, 99),
          max: sorted.length ? sorted[sorted.length - 1]! : NaN,
          longestGapMs,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          statusCodes,
          serverCpuMicrosPerRequest: cpu !== null && latencies.length > 0 ? cpu / latencies.length : null,
          serverCpuCores: cpu !== null ? cpu / wallMicros : null,
        });
      },
    );
    if (extend) {
      const check = setInterval(() => {
        if (performance.now() - started >= options.seconds * 1000 && extend.done()) {
          clearInterval(check);
          instance.stop();
        }
      }, 250);
      instance.on('done', () => clearInterval(check));
    }
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
      if (statusCode >= 200 && statusCode < 300) {
        latencies.push(responseTime);
        arrivals.push(performance.now());
      }
    });
  });
}
