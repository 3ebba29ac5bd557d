/**
 * The background snapshot's thread (compaction.ts): started for one job by workerCompactor, it
 * builds the image and writes it durably, then ends. Nothing here touches the live database.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { compact } from './compaction';
import type { CompactionJob } from './compaction';
import { nodeStorageFs } from './fs';
import { loadSqlJs } from './load-database';

const { job, wasmPath } = workerData as { job: CompactionJob; wasmPath?: string };

loadSqlJs(wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'))
  .then((SQL) => compact(SQL, nodeStorageFs, job))
  .then(
    () => parentPort!.postMessage({ ok: true }),
    (err: unknown) => parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) }),
  );
