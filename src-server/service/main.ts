/**
 * The headless entry (headless.ts does the work): turns on Node's compile cache first, then loads
 * the service. Compiling the service's modules (this build, Fastify, zod, pg, sql.js's glue) is a
 * large share of a start's CPU before the data is even read; with the cache (Node ≥ 22.1, kept in
 * the OS's temporary directory, keyed by each file's contents) a start after the first reuses the
 * compiled code. The cache must be on before those modules are compiled, so they are loaded with
 * a dynamic import after it.
 */
import * as nodeModule from 'node:module';

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./headless');
