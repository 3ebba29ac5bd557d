/**
 * Warming a process up before it is measured. A new service process costs about 2.5 times its
 * steady CPU per request in its first seconds under load: single POSTs on 10 connections at a
 * Store of 10,000 took 1,640 µs a request in the first second, 1,070 in the second, 754 in the
 * fourth and 440–480 from the eighth on (docs/performance.md, "Ninth round"). V8 is optimising the
 * service's code and sql.js's WebAssembly, and the heap grows to its working size. A running LRS
 * has paid that long before, and the targets are about what it costs then.
 */
import { runLoad } from './load';
import type { Scenario } from './scenarios';

/** Seconds of single POSTs before the scenarios' own second each (a quick run: 3). */
export function warmUpSeconds(quick: boolean): number {
  return quick ? 3 : 10;
}

/**
 * Single POSTs for `seconds` on every process in `urls` at once, then each scenario for a second,
 * so that the code each one runs is optimised before its measured run. Writes statements (the
 * POST and PUT scenarios do): call it after anything measured of the preloaded Store alone.
 */
export async function warmUp(urls: readonly string[], all: readonly Scenario[], seconds: number): Promise<void> {
  const post = all.find((scenario) => scenario.name === 'post-1-c10') ?? all[0];
  if (!post) return;
  await Promise.all(urls.map((baseUrl) => runLoad({ baseUrl, connections: post.connections, seconds, next: post.next })));
  for (const scenario of all) {
    await Promise.all(urls.map((baseUrl) => runLoad({ baseUrl, connections: scenario.connections, seconds: 1, next: scenario.next })));
  }
}
