/**
 * How fast a Store takes in another LRS's statements (docs/import.md): two services on sql.js in
 * this process, the source filled with `count` statements (default 20,000), then a pull into an
 * empty Store (the source's own page size), and the same statements as an NDJSON file (built from
 * the source's GET /statements) into another. Prints statements per second and the process's
 * memory, which stays flat with the file's size: the body is read line by line.
 *
 *   npx tsx scripts/bench/import-throughput.ts [count]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../../src-server/service/service';

const TOKEN = 'bench-admin-token-0123456789abcdef';
const count = Number(process.argv[2] ?? 20_000);

async function adminPost(service: RunningService, path: string, body: unknown, type = 'application/json'): Promise<Response> {
  return fetch(`${service.url}/admin/api${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function storeWithKey(service: RunningService, slug: string): Promise<{ id: string; secret: string; basic: string }> {
  await adminPost(service, '/stores', { slug, name: slug });
  return (await (await adminPost(service, `/stores/${slug}/keys`, { name: 'bench' })).json()) as { id: string; secret: string; basic: string };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

async function main(): Promise<void> {
  const dirs = [mkdtempSync(join(tmpdir(), 'lore-import-bench-a-')), mkdtempSync(join(tmpdir(), 'lore-import-bench-b-'))];
  const [source, target] = await Promise.all(dirs.map((dataDir) => startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: TOKEN })));
  try {
    const key = await storeWithKey(source!, 'origin');
    const headers = { authorization: `Basic ${key.basic}`, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' };
    const fillStart = performance.now();
    for (let sent = 0; sent < count; sent += 500) {
      const batch = Array.from({ length: Math.min(500, count - sent) }, (_, i) => ({
        id: randomUUID(),
        actor: { mbox: `mailto:learner${(sent + i) % 1000}@example.com`, name: `Learner ${(sent + i) % 1000}` },
        verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
        object: { id: `http://example.com/courses/${(sent + i) % 50}`, definition: { name: { 'en-US': `Course ${(sent + i) % 50}` } } },
        result: { score: { scaled: 0.8 }, success: true },
      }));
      const response = await fetch(`${source!.url}/origin/xapi/statements`, { method: 'POST', headers, body: JSON.stringify(batch) });
      if (!response.ok) throw new Error(`filling the source: ${response.status} ${await response.text()}`);
    }
    const fillSeconds = (performance.now() - fillStart) / 1000;
    // The same statements as POSTed by a client, batches of 500: what an import is compared with.
    console.log(`source: ${count} statements POSTed in ${fillSeconds.toFixed(1)} s, ${(count / fillSeconds).toFixed(0)} statements/s`);

    await storeWithKey(target!, 'pulled');
    const pullStart = performance.now();
    const started = (await (await adminPost(target!, '/stores/pulled/imports', { kind: 'lrs', endpoint: `${source!.url}/origin/xapi/`, key: key.id, secret: key.secret })).json()) as { id: string };
    let job: { state: string; counts: Record<string, number>; error: string | null };
    for (;;) {
      job = (await (await fetch(`${target!.url}/admin/api/stores/pulled/imports/${started.id}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as typeof job;
      if (job.state === 'finished' || job.state === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pullSeconds = (performance.now() - pullStart) / 1000;
    console.log(`pull: ${job.state} in ${pullSeconds.toFixed(1)} s, ${(job.counts.imported! / pullSeconds).toFixed(0)} statements/s, counts ${JSON.stringify(job.counts)}`);

    const lines: string[] = [];
    let url = `${source!.url}/origin/xapi/statements?ascending=true&limit=500`;
    while (url) {
      const page = (await (await fetch(url, { headers })).json()) as { statements: unknown[]; more: string };
      for (const statement of page.statements) lines.push(JSON.stringify(statement));
      url = page.more ? `${source!.url}${page.more}` : '';
    }
    const file = `${lines.join('\n')}\n`;
    await storeWithKey(target!, 'from-file');
    const rssBefore = process.memoryUsage().rss;
    const fileStart = performance.now();
    const response = await adminPost(target!, '/stores/from-file/imports?fileName=bench.ndjson', file, 'application/x-ndjson');
    const fileJob = (await response.json()) as typeof job;
    const fileSeconds = (performance.now() - fileStart) / 1000;
    console.log(
      `NDJSON (${mib(Buffer.byteLength(file))}): ${fileJob.state} in ${fileSeconds.toFixed(1)} s, ${(fileJob.counts.imported! / fileSeconds).toFixed(0)} statements/s, ` +
        `rss ${mib(rssBefore)} → ${mib(process.memoryUsage().rss)} (this process holds the file to send it)`,
    );
  } finally {
    await Promise.all([source?.stop(), target?.stop()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
