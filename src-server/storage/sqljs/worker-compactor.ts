/**
 * A Compactor (compaction.ts) that runs each background snapshot on a worker thread of its own,
 * so building the image (a second copy of the database, the journal replayed) never blocks the
 * event loop that answers requests. The service uses it inside Electron; elsewhere a child
 * process (process-compactor.ts), which also keeps the image's memory out of the service's.
 */
import { Worker } from 'node:worker_threads';
import type { CompactionJob, Compactor } from './compaction';
import { compactionEntry } from './compaction-entry';

/** `wasmPath`: sql.js's wasm, as the storage was given it (by default the one in node_modules). */
export function workerCompactor(wasmPath?: string): Compactor {
  return (job: CompactionJob) =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(compactionEntry(), { workerData: { job, wasmPath } });
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
