/**
 * The service's Compactor (compaction.ts) outside Electron: each background snapshot in a child
 * process of its own. Building the image reads, replays and copies the whole database; on a worker
 * thread that memory traffic shares the service's address space, and measured here it held the
 * service's event loop for up to ~300 ms at a time (a 1M-statement Store: 0.2–0.9 s maxima on
 * GETs while one ran); the same work in a child process left the event loop's delays at their
 * usual ~8 ms. The child ends with its job, and with the service if the service dies.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CompactionJob, Compactor } from './compaction';
import { awaitCompaction, compactionEntry } from './compaction-entry';
import type { CompactionRequest } from './compaction-entry';

/** `wasmPath`: sql.js's wasm, as the storage was given it (by default the one in node_modules). */
export function processCompactor(wasmPath?: string): Compactor {
  return (job: CompactionJob) => {
    // The child needs none of the service's flags (a profiler's, say) nor its admin token.
    const env = { ...process.env };
    delete env['LRS_ADMIN_TOKEN'];
    const request: CompactionRequest = { job, wasmPath };
    const child = fork(fileURLToPath(compactionEntry()), [JSON.stringify(request)], {
      execArgv: [],
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return awaitCompaction(child, 'process', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
  };
}
