/**
 * npm run suite:export [-- --statements 100000 --pause-ms 3000]
 *
 * The export of a large Store against the real service (the production build, its own process):
 * fills a Store with realistic statements (~1 KB each, scripts/bench/statements.ts), then exports
 * it as NDJSON and as CSV through GET /admin/api/stores/:slug/export while
 * - the service's resident memory is sampled every 20 ms (Linux /proc): the growth over the
 *   memory it had before the export is what the export costs;
 * - a client stops reading for --pause-ms in the middle of the NDJSON export (a slow client): the
 *   service must not buffer the rest of the Store meanwhile;
 * - a course keeps sending statements (10 a request, every 100 ms): its slowest answer says the
 *   service kept serving.
 * Exits 1 when a line is missing, or the memory grew by more than --max-growth-mb (default 64).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from '../build-if-stale.mjs';
import { ADMIN_TOKEN, memoryOf, startServiceProcess } from '../bench/processes';
import { statementGenerator } from '../bench/statements';
import { runSuite, suiteArgs } from './args';

const args = suiteArgs({ statements: 'number', 'pause-ms': 'number', 'max-growth-mb': 'number' });
const MB = 1024 * 1024;

interface Measured {
  lines: number;
  bytes: number;
  seconds: number;
  rssBeforeMb: number;
  rssMaxMb: number;
  slowestWriteMs: number;
}

await runSuite(async () => {
  const total = args.statements ?? 100_000;
  const pauseMs = args['pause-ms'] ?? 3000;
  const maxGrowthMb = args['max-growth-mb'] ?? 64;
  await buildIfStale({ log: (line: string) => console.log(line) });
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-suite-export-'));
  const service = await startServiceProcess({ dataDir });
  const pid = service.child.pid!;
  const admin = (path: string, body: unknown) =>
    fetch(`${service.url}/admin/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    await admin('/stores', { slug: 'big', name: 'Big' });
    const key = (await (await admin('/stores/big/keys', { name: 'loader' })).json()) as { id: string; secret: string };
    const headers = {
      authorization: `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`,
      'x-experience-api-version': '1.0.3',
      'content-type': 'application/json',
    };
    const generator = statementGenerator(7);
    const send = async (count: number) => {
      const response = await fetch(`${service.url}/big/xAPI/statements`, { method: 'POST', headers, body: JSON.stringify(Array.from({ length: count }, () => generator.next())) });
      if (response.status !== 200) throw new Error(`loading: ${response.status} ${await response.text()}`);
    };
    const loadStart = performance.now();
    for (let sent = 0; sent < total; sent += 1000) await send(Math.min(1000, total - sent));
    console.log(`loaded ${total.toLocaleString('en-US')} statements in ${((performance.now() - loadStart) / 1000).toFixed(1)} s`);

    const exportOnce = async (format: 'ndjson' | 'csv', pauseAt?: number): Promise<Measured> => {
      // Let the service settle (a snapshot after the load) before the baseline is read.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const rssBefore = memoryOf(pid)?.rss ?? NaN;
      let rssMax = rssBefore;
      const sampler = setInterval(() => (rssMax = Math.max(rssMax, memoryOf(pid)?.rss ?? 0)), 20);
      let slowestWrite = 0;
      let writing = true;
      const writer = (async () => {
        while (writing) {
          const at = performance.now();
          await send(10);
          slowestWrite = Math.max(slowestWrite, performance.now() - at);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const start = performance.now();
      const response = await fetch(`${service.url}/admin/api/stores/big/export?format=${format}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      if (!response.ok || !response.body) throw new Error(`export: ${response.status} ${await response.text()}`);
      const reader = response.body.getReader();
      let bytes = 0;
      let lines = 0;
      let paused = pauseAt === undefined;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        for (const byte of value) if (byte === 0x0a) lines++;
        if (!paused && lines >= pauseAt!) {
          paused = true;
          await new Promise((resolve) => setTimeout(resolve, pauseMs));
        }
      }
      const seconds = (performance.now() - start) / 1000;
      writing = false;
      await writer;
      clearInterval(sampler);
      return { lines, bytes, seconds, rssBeforeMb: rssBefore / MB, rssMaxMb: rssMax / MB, slowestWriteMs: slowestWrite };
    };

    const ndjson = await exportOnce('ndjson', Math.floor(total / 2));
    const csv = await exportOnce('csv');
    const rows = [
      ['NDJSON (a client pausing halfway)', ndjson, total],
      ['CSV', csv, total + 1],
    ] as const;
    const problems: string[] = [];
    const lines = rows.map(([label, m, atLeast]) => {
      const growth = m.rssMaxMb - m.rssBeforeMb;
      if (m.lines < atLeast) problems.push(`${label}: ${m.lines} lines, expected at least ${atLeast}`);
      if (growth > maxGrowthMb) problems.push(`${label}: memory grew by ${growth.toFixed(1)} MB (limit ${maxGrowthMb} MB)`);
      return (
        `${label}: ${m.lines.toLocaleString('en-US')} lines, ${(m.bytes / MB).toFixed(1)} MB in ${m.seconds.toFixed(1)} s ` +
        `(${(m.bytes / MB / m.seconds).toFixed(1)} MB/s); service RSS ${m.rssBeforeMb.toFixed(1)} MB before, ${m.rssMaxMb.toFixed(1)} MB at most ` +
        `(+${growth.toFixed(1)} MB); slowest statement write meanwhile ${m.slowestWriteMs.toFixed(0)} ms`
      );
    });
    // Statements sent meanwhile are in the second export: at least `total` lines.
    return { ok: problems.length === 0, summary: [`export of ${total.toLocaleString('en-US')} statements`, ...lines, ...problems].join('\n') };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
