/**
 * Where the background snapshot's entry (compaction-worker) is: from source (tsx, tests) a loader
 * beside this module that imports compaction-worker.ts; in a build, compaction-worker.js at the top
 * of the output folder (both builds emit it), beside this code or one folder up when the bundler
 * put this code in a chunk.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function compactionEntry(): URL {
  if (import.meta.url.endsWith('.ts')) return new URL('./compaction-from-source.mjs', import.meta.url);
  const candidates = [new URL('./compaction-worker.js', import.meta.url), new URL('../compaction-worker.js', import.meta.url)];
  const found = candidates.find((url) => existsSync(url));
  if (!found) throw new Error(`compaction-worker.js is not beside the service's build (${fileURLToPath(candidates[0]!)})`);
  return found;
}
