/**
 * The background snapshot's entry (compaction.ts), for one job: it builds the image and writes it
 * durably, then ends. Nothing here touches the live database. It runs either as a child process
 * (processCompactor: the job is its first argument, the answer an IPC message) or on a worker thread
 * (workerCompactor: the job is its workerData); it answers `{ok}` or `{ok: false, message}`.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { compact } from './compaction';
import type { CompactionAnswer, CompactionRequest } from './compaction-entry';
import { nodeStorageFs } from './fs';
import { loadSqlJs } from './load-database';

function run({ job, wasmPath }: CompactionRequest): Promise<CompactionAnswer> {
  return loadSqlJs(wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'))
    .then((SQL) => compact(SQL, nodeStorageFs, job))
    .then(
      (): CompactionAnswer => ({ ok: true }),
      (err: unknown): CompactionAnswer => ({ ok: false, message: err instanceof Error ? err.message : String(err) }),
    );
}

if (parentPort) {
  const port = parentPort;
  void run(workerData as CompactionRequest).then((answer) => port.postMessage(answer));
} else if (process.send) {
  // A service that dies (kill -9) closes the channel: an image it can no longer use is not
  // finished, and its temp file is left to the next start, which removes it.
  process.once('disconnect', () => process.exit(1));
  // The job is the first argument (a message could arrive before this module has loaded).
  const request = JSON.parse(process.argv[2] ?? '{}') as CompactionRequest;
  void run(request).then((answer) => process.send!(answer, () => process.exit(answer.ok ? 0 : 1)));
}
