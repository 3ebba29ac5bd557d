/**
 * The benchmark's baseline: raw Fastify that parses the same bodies (JSON, same body limit as the
 * service) and answers at once, with no auth, validation or storage. Every scenario also runs
 * against it, on the same machine with the same load settings, so a service figure can be read as
 * a fraction of what the HTTP stack alone allows here.
 *
 * Run by the benchmark as a child process: `node --import tsx scripts/bench/baseline-server.ts`;
 * prints `listening on <url>`, stops on SIGTERM.
 */
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';

// The service's DEFAULT_BODY_LIMIT_BYTES (not imported: that would load the whole service here).
const app = Fastify({ logger: false, bodyLimit: 20 * 1024 * 1024 });
const answer = { ok: true };
app.route({ method: ['GET', 'POST', 'PUT'], url: '/*', handler: async () => answer });

await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
