/**
 * Node flags the service process is started with, by every launcher: the desktop app's utility
 * process (src-main/local-service.ts), `npm run serve` (package.json; a test keeps it in step) and
 * the benchmark.
 *
 * --max-semi-space-size=32 (MiB; Node 20's default is 16): a request's objects live a few
 * milliseconds, until the journal is on disk, and with the default young generation enough of them
 * are still alive at each scavenge to be promoted, which brought a full mark-compact every ~1.3 s
 * under single-statement POSTs. Measured with the benchmark's single POSTs and filtered GETs: 5–10%
 * more requests per second and a lower p99, for up to ~50 MB more memory. V8 reads it at start-up
 * only (v8.setFlagsFromString has no effect on the young generation's size afterwards).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];
