/**
 * The service's Compactor (compaction.ts): each background snapshot on a worker thread of its own,
 * so building the image (a second copy of the database, the journal replayed) never blocks the
 * event loop that answers requests.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CompactionJob, Compactor } from './compaction';

/**
 * The worker's script: from source (tsx, tests) a loader beside this module that imports
 * compaction-worker.ts; in a build, compaction-worker.js at the top of the output folder (both
 * builds emit it), beside this code or one folder up when the bundler put this code in a chunk.
 */
function workerScript(): URL {
  if (import.meta.url.endsWith('.ts')) return new URL('./compaction-from-source.mjs', import.meta.url);
  const candidates = [new URL('./compaction-worker.js', import.meta.url), new URL('../compaction-worker.js', import.meta.url)];
  const found = candidates.find((url) => existsSync(url));
  if (!found) throw new Error(`compaction-worker.js is not beside the service's build (${fileURLToPath(candidates[0]!)})`);
  return found;
}

/** `wasmPath`: sql.js's wasm, as the storage was given it (by default the one in node_modules). */
export function workerCompactor(wasmPath?: string): Compactor {
  return (job: CompactionJob) =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(workerScript(), { workerData: { job, wasmPath } });
      let settled = false;
      const settle = (err: Error | null) => {
        if (settled) return;
        settled = true;
        void worker.terminate();
        if (err) reject(err);
        else resolve();
      };
      worker.once('message', (message: { ok: boolean; message?: string }) =>
        settle(message.ok ? null : new Error(`background snapshot failed: ${message.message}`)),
      );
      worker.once('error', (err) => settle(new Error(`background snapshot failed: ${err.message}`)));
      worker.once('exit', (code) => settle(new Error(`the background snapshot's thread stopped (exit code ${code})`)));
    });
}
