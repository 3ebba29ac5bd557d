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
import { compactionEntry } from './compaction-entry';

/** `wasmPath`: sql.js's wasm, as the storage was given it (by default the one in node_modules). */
export function processCompactor(wasmPath?: string): Compactor {
  return (job: CompactionJob) =>
    new Promise<void>((resolve, reject) => {
      // The child needs none of the service's flags (a profiler's, say) nor its admin token.
      const env = { ...process.env };
      delete env['LRS_ADMIN_TOKEN'];
      const child = fork(fileURLToPath(compactionEntry()), [JSON.stringify({ job, wasmPath })], {
        execArgv: [],
        env,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let settled = false;
      const settle = (err: Error | null) => {
        if (settled) return;
        settled = true;
        if (child.exitCode === null && child.signalCode === null) child.kill();
        if (err) reject(err);
        else resolve();
      };
      child.once('message', (message: { ok: boolean; message?: string }) =>
        settle(message.ok ? null : new Error(`background snapshot failed: ${message.message}`)),
      );
      child.once('error', (err) => settle(new Error(`background snapshot failed: ${err.message}`)));
      child.once('exit', (code, signal) => settle(new Error(`the background snapshot's process stopped (${signal ?? `exit code ${code}`})`)));
    });
}
