/**
 * A Compactor (compaction.ts) that runs each background snapshot on a worker thread of its own,
 * so building the image (a second copy of the database, the journal replayed) never blocks the
 * event loop that answers requests. The service uses it inside Electron; elsewhere a child
 * process (process-compactor.ts), which also keeps the image's memory out of the service's.
 */
import { Worker } from 'node:worker_threads';
import type { CompactionJob, Compactor } from './compaction';
import { awaitCompaction, compactionEntry } from './compaction-entry';
import type { CompactionRequest } from './compaction-entry';

/** `wasmPath`: sql.js's wasm, as the storage was given it (by default the one in node_modules). */
export function workerCompactor(wasmPath?: string): Compactor {
  return (job: CompactionJob) => {
    const request: CompactionRequest = { job, wasmPath };
    const worker = new Worker(compactionEntry(), { workerData: request });
    return awaitCompaction(worker, 'thread', () => void worker.terminate());
  };
}
