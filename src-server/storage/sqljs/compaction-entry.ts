/**
 * The background snapshot's entry (compaction-worker) as its runners see it: where it is, what it
 * is asked and answers, and how a runner (a child process or a worker thread) waits for the answer.
 *
 * Where: from source (tsx, tests) a loader beside this module that imports compaction-worker.ts; in
 * a build, compaction-worker.js at the top of the output folder (both builds emit it), beside this
 * code or one folder up when the bundler put this code in a chunk.
 */
import type { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CompactionJob } from './compaction';

export interface CompactionRequest {
  job: CompactionJob;
  wasmPath?: string;
}

export type CompactionAnswer = { ok: true } | { ok: false; message: string };

export function compactionEntry(): URL {
  if (import.meta.url.endsWith('.ts')) return new URL('./compaction-from-source.mjs', import.meta.url);
  const candidates = [new URL('./compaction-worker.js', import.meta.url), new URL('../compaction-worker.js', import.meta.url)];
  const found = candidates.find((url) => existsSync(url));
  if (!found) throw new Error(`compaction-worker.js is not beside the service's build (${fileURLToPath(candidates[0]!)})`);
  return found;
}

/**
 * Settles with the entry's answer, or fails when the runner errs or ends without one (`what` names
 * it in the message). `stop` ends the runner once settled, whatever happened.
 */
export function awaitCompaction(runner: EventEmitter, what: string, stop: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      stop();
      if (err) reject(err);
      else resolve();
    };
    runner.once('message', (answer: CompactionAnswer) => settle(answer.ok ? null : new Error(`background snapshot failed: ${answer.message}`)));
    runner.once('error', (err: Error) => settle(new Error(`background snapshot failed: ${err.message}`)));
    runner.once('exit', (code: number | null, signal?: string | null) =>
      settle(new Error(`the background snapshot's ${what} stopped (${signal ?? `exit code ${code}`})`)),
    );
  });
}
