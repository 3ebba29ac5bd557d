/**
 * Start-up of the embedded database at a large Store, on its own:
 *
 *   npx tsx scripts/bench/startup.ts build <dir> [--statements N]   a data directory of N statements
 *   npx tsx scripts/bench/startup.ts measure <dir> [--runs N] [--main out/server/main.js] [--profile <dir>]
 *
 * `build` preloads N statements (default 1,000,000) over HTTP into <dir> as the full benchmark's
 * large phase does (batches of 1,000, one snapshot at the end) and keeps the Store's key beside it
 * (<dir>.json). `measure` copies <dir> per run (start-up may write: sums, added tables), starts the
 * production build on the copy and reports process start → first 200 on /health and → first 200
 * on a filtered statements query (the figures `npm run bench` reports), and the service's own
 * start-up phases from its log. Several builds can be compared on the same directory, back to back:
 * `--main a/out/server/main.js,b/out/server/main.js` alternates them run by run.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMicros } from './load';
import { median } from './median';
import { SERVICE_MAIN, startServiceProcess } from './processes';
import { READ_SLUG as SLUG, preload, storeContext } from './read-store';

const { values: args, positionals } = parseArgs({
  options: {
    statements: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    main: { type: 'string' },
    profile: { type: 'string' },
    seed: { type: 'string', default: '11' },
  },
  allowPositionals: true,
  strict: true,
});
const [mode, dirArg] = positionals;
if ((mode !== 'build' && mode !== 'measure') || !dirArg) {
  console.error('usage: startup.ts build|measure <dir> [--statements N] [--runs N] [--main a.js,b.js] [--profile dir]');
  process.exit(2);
}
const dir = resolve(dirArg);
const QUERY = `/${SLUG}/xAPI/statements?verb=${encodeURIComponent('http://adlnet.gov/expapi/verbs/completed')}&limit=50`;

interface Saved {
  authorization: string;
  statements: number;
}

async function build(count: number): Promise<void> {
  if (existsSync(dir)) throw new Error(`${dir} exists`);
  const service = await startServiceProcess({ dataDir: dir, snapshotThresholdBytes: 4 * 1024 ** 3 });
  const t0 = performance.now();
  let stored = 0;
  try {
    const ctx = await storeContext(service.url);
    let last = Date.now();
    await preload([service.url], ctx, count, Number(args.seed), (sent) => {
      stored = sent;
      if (Date.now() - last > 15_000) {
        last = Date.now();
        console.error(`${stored.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      }
    });
    writeFileSync(`${dir}.json`, JSON.stringify({ authorization: ctx.authorization, statements: stored } satisfies Saved));
  } finally {
    await service.stop();
  }
  console.log(`${stored.toLocaleString('en-US')} statements in ${((performance.now() - t0) / 1000).toFixed(0)} s into ${dir}`);
}

async function measureOnce(main: string, saved: Saved, profileDir: string | undefined) {
  const copy = mkdtempSync(join(tmpdir(), 'lore-startup-'));
  try {
    cpSync(dir, copy, { recursive: true });
    const service = await startServiceProcess({
      dataDir: copy,
      main,
      ...(profileDir ? { nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
      env: { LORE_STARTUP_TIMINGS: '1' },
    });
    try {
      const health = await fetch(`${service.url}/health`);
      const healthMs = performance.now() - service.spawnedAt;
      if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
      const query = await fetch(`${service.url}${QUERY}`, { headers: { authorization: saved.authorization, 'x-experience-api-version': '1.0.3' } });
      const queryMs = performance.now() - service.spawnedAt;
      // CPU time (all threads) up to the first answer: less sensitive than wall time to a busy machine.
      const cpuMs = (cpuMicros(service.child.pid) ?? NaN) / 1000;
      if (query.status !== 200) throw new Error(`the first query answered ${query.status}`);
      const statements = ((await query.json()) as { statements: unknown[] }).statements.length;
      const phases = service.log.map((line) => line.text).filter((text) => /start-up|startup|open/.test(text));
      return { healthMs, queryMs, cpuMs, listenMs: service.listeningAt - service.spawnedAt, statements, phases };
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function measure(): Promise<void> {
  const saved = JSON.parse(readFileSync(`${dir}.json`, 'utf8')) as Saved;
  const mains = (args.main ?? SERVICE_MAIN).split(',').map((m) => resolve(m));
  const runs = Number(args.runs);
  const results = new Map<string, { healthMs: number; queryMs: number; cpuMs: number }[]>(mains.map((m) => [m, []]));
  for (let run = 0; run < runs; run++) {
    for (const main of mains) {
      const r = await measureOnce(main, saved, args.profile);
      results.get(main)!.push(r);
      console.log(`${main}: listen ${r.listenMs.toFixed(0)} ms, /health ${r.healthMs.toFixed(0)} ms, first query ${r.queryMs.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms (${r.statements} statements)`);
      for (const line of r.phases) console.log(`    ${line}`);
    }
  }
  console.log(`\n${saved.statements.toLocaleString('en-US')} statements, ${runs} runs each (median):`);
  for (const [main, rs] of results) {
    console.log(`  ${main}: /health ${median(rs.map((r) => r.healthMs)).toFixed(0)} ms, first query ${median(rs.map((r) => r.queryMs)).toFixed(0)} ms, CPU to the first answer ${median(rs.map((r) => r.cpuMs)).toFixed(0)} ms`);
  }
}

await (mode === 'build' ? build(Number(args.statements)) : measure());
