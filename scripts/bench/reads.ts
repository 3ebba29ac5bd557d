/**
 * `tsx scripts/bench/reads.ts --data-dir DIR [--statements N] [--seconds S] [--scenario a,b]`
 *
 * The large Store's read scenarios (filtered GET /statements and the Explorer's searches,
 * scenarios.ts) on their own, against a data directory that is kept between runs: the first run
 * preloads DIR with N statements (default 300,000; minutes), later runs start the service on it at
 * once. So a change to the read path is measured in seconds, before and after, on the same Store.
 * `npm run build:server` first: the service runs from out/.
 *
 * `--engine` opens the directory's snapshot in sql.js without the service (the service must be
 * stopped) and prints, for each filter, the query plan SQLite chooses and the time of the
 * storage read alone: the part of a request that is the database's. `--profile <scenario>` runs
 * one scenario under the service's CPU profiler and prints where its time went (profile.ts).
 * `--main <out/server/main.js>` measures another build (an earlier commit's) on the same data.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from './load';
import { startServiceProcess, type Child } from './processes';
import { READ_SLUG as SLUG, preload, storeContext } from './read-store';
import { analyseProfile, monotonicMicros, printProfile } from './profile';
import { readEngineCosts } from './read-engine';
import { scenarios, type StoreContext } from './scenarios';

const READ_SCENARIOS = ['get-agent', 'get-activity', 'get-verb', 'explorer-agent', 'explorer-activity', 'explorer-actor-name', 'explorer-verb-word', 'explorer-activity-word'];

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    statements: { type: 'string', default: '300000' },
    seconds: { type: 'string', default: '3' },
    scenario: { type: 'string' },
    engine: { type: 'boolean', default: false },
    profile: { type: 'string' },
    main: { type: 'string' },
  },
  strict: true,
});
const dataDir = args['data-dir'];
if (!dataDir) throw new Error('--data-dir is required (kept between runs)');
const wanted = args.scenario ? args.scenario.split(',') : READ_SCENARIOS;

async function measure(service: Child, ctx: StoreContext): Promise<void> {
  const chosen = scenarios(ctx, 2).filter((s) => wanted.includes(s.name));
  // Warm-up: every scenario once for a second, so the JIT and SQLite's page cache settle.
  for (const scenario of chosen) await runLoad({ baseUrl: service.url, connections: scenario.connections, seconds: 1, next: scenario.next });
  console.log('scenario                 req/s     p50     p95     p99   CPU µs/req');
  for (const scenario of chosen) {
    const r = await runLoad({ baseUrl: service.url, connections: scenario.connections, seconds: Number(args.seconds), next: scenario.next, serverPid: service.child.pid });
    const cells = [r.requestsPerSec.toFixed(0).padStart(7), ...[r.p50, r.p95, r.p99].map((v) => v.toFixed(2).padStart(7)), (r.serverCpuMicrosPerRequest ?? NaN).toFixed(0).padStart(12)];
    console.log(`${scenario.name.padEnd(24)}${cells.join(' ')}${r.non2xx ? `  ${r.non2xx} non-2xx` : ''}`);
  }
}

/** One scenario under --cpu-prof: the load window's self time by function and area. */
async function profiled(name: string): Promise<void> {
  const profileDir = mkdtempSync(join(tmpdir(), 'lore-reads-profile-'));
  const service = await startServiceProcess({ dataDir: dataDir!, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`], ...(args.main ? { main: args.main } : {}) });
  let window;
  try {
    const scenario = scenarios(await storeContext(service.url), 2).find((s) => s.name === name);
    if (!scenario) throw new Error(`--profile takes one of ${READ_SCENARIOS.join(', ')}`);
    await runLoad({ baseUrl: service.url, connections: scenario.connections, seconds: 1, next: scenario.next });
    const fromUs = monotonicMicros();
    await runLoad({ baseUrl: service.url, connections: scenario.connections, seconds: Number(args.seconds), next: scenario.next });
    window = { fromUs, toUs: monotonicMicros() };
  } finally {
    await service.stop();
  }
  printProfile(analyseProfile(profileDir, window));
}

async function main(): Promise<void> {
  if (args.profile) return profiled(args.profile);
  if (args.engine) return readEngineCosts(dataDir!, SLUG);
  const fresh = !existsSync(`${dataDir}/lore.sqlite`);
  mkdirSync(dataDir!, { recursive: true });
  if (fresh) {
    // A high snapshot threshold: one snapshot, at the stop, instead of one per 64 MiB.
    const loader = await startServiceProcess({ dataDir: dataDir!, snapshotThresholdBytes: 4 * 1024 ** 3 });
    try {
      // The bench's statements as its large phase sends them (seed 11).
      const t0 = performance.now();
      await preload([loader.url], await storeContext(loader.url), Number(args.statements), 11, (stored) => {
        if (stored % 50_000 === 0) console.error(`preloaded ${stored.toLocaleString('en-US')} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
      });
    } finally {
      await loader.stop();
    }
  }
  const service = await startServiceProcess({ dataDir: dataDir!, ...(args.main ? { main: args.main } : {}) });
  try {
    await measure(service, await storeContext(service.url));
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
