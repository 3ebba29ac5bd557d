/**
 * `tsx scripts/bench/postgres-rounds.ts --database-url postgres://… [--rounds 6] [--seconds 3] [--preload 5000] [--scenario post-1-c10,post-100]`
 *
 * PostgreSQL against the embedded storage in alternating rounds: the "single POST on one
 * process ≥ 60% of the sql.js figure in the same run" read the way the batched-POST target is.
 * One run of each (`npm run bench -- --database-url …`) gave anywhere from 0.52× to 0.65× on this
 * machine; rounds that alternate see the same load, so the median of the per-round ratios says on
 * which side of the line it is. One service on a fresh data directory (sql.js) and one on a fresh
 * database of the server the URL names (its user needs CREATEDB; the database is dropped at the
 * end), the same statements preloaded in each, then each scenario in rounds whose order alternates.
 * Prints, per round, requests a second and CPU per request in the service (and in PostgreSQL's
 * processes, when the server runs on this machine), then the median ratio.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { runLoad, type LoadResult } from './load';
import { median } from './median';
import { createStore } from './postgres';
import { postmasterPid, serverCpuMicros } from './postgres-cpu';
import { startServiceProcess, type Child } from './processes';
import { preload } from './read-store';
import { scenarios, type Scenario } from './scenarios';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    preload: { type: 'string', default: '5000' },
    scenario: { type: 'string', default: 'post-1-c10,post-100' },
  },
  strict: true,
});
if (!args['database-url']) throw new Error('--database-url is required');
const serverUrl = args['database-url'];
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);

async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

interface Side {
  name: string;
  service: Child;
  chosen: Scenario[];
}

interface Measured {
  result: LoadResult;
  /** PostgreSQL's CPU per request, µs (null when its server is not on this machine). */
  postgresMicros: number | null;
}

async function measure(side: Side, scenario: Scenario, postmaster: number | null): Promise<Measured> {
  const before = postmaster === null ? 0 : serverCpuMicros(postmaster);
  const result = await runLoad({
    baseUrl: side.service.url,
    connections: scenario.connections,
    seconds,
    next: scenario.next,
    statementsPerRequest: scenario.statementsPerRequest,
    serverPid: side.service.child.pid,
  });
  const requests = result.requestsPerSec * seconds;
  return { result, postgresMicros: postmaster === null || requests === 0 ? null : (serverCpuMicros(postmaster) - before) / requests };
}

const micros = (value: number | null | undefined) => (value === null || value === undefined ? '-' : value.toFixed(0));

const database = `lore_rounds_${Date.now()}`;
const url = new URL(serverUrl);
url.pathname = `/${database}`;
const dirs = [mkdtempSync(join(tmpdir(), 'lore-rounds-sqljs-')), mkdtempSync(join(tmpdir(), 'lore-rounds-pg-'))];
await onServer(`CREATE DATABASE ${database}`);
const sides: Side[] = [];
try {
  const postmaster = await postmasterPid(serverUrl);
  const wanted = args.scenario.split(',');
  for (const [name, env] of [
    ['sql.js', {}],
    ['PostgreSQL', { LRS_DATABASE_URL: url.toString() }],
  ] as const) {
    const service = await startServiceProcess({ dataDir: dirs[sides.length]!, env });
    sides.push({ name, service, chosen: [] });
    const ctx = await createStore(service.url);
    await preload([service.url], ctx, Number(args.preload), 1);
    sides.at(-1)!.chosen = wanted.map((scenario) => {
      const found = scenarios(ctx, 2).find((s) => s.name === scenario);
      if (!found) throw new Error(`no scenario ${scenario}`);
      return found;
    });
  }
  // The preload's tables analysed now, not by autovacuum during a measured round.
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query('VACUUM ANALYZE').finally(() => client.end());

  const [sqljs, postgres] = sides as [Side, Side];
  for (const [index, name] of wanted.entries()) {
    const ratios: number[] = [];
    for (const side of sides) await runLoad({ baseUrl: side.service.url, connections: 10, seconds: 1, next: side.chosen[index]!.next });
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first: a machine speeding up or slowing down favours neither.
      const order = round % 2 === 0 ? [sqljs, postgres] : [postgres, sqljs];
      const measured = new Map<Side, Measured>();
      for (const side of order) measured.set(side, await measure(side, side.chosen[index]!, side === postgres ? postmaster : null));
      const s = measured.get(sqljs)!;
      const p = measured.get(postgres)!;
      const ratio = p.result.requestsPerSec / s.result.requestsPerSec;
      ratios.push(ratio);
      console.log(
        `${name} round ${round + 1}: sql.js ${s.result.requestsPerSec.toFixed(0)} req/s (${micros(s.result.serverCpuMicrosPerRequest)} µs a request), ` +
          `PostgreSQL ${p.result.requestsPerSec.toFixed(0)} req/s (service ${micros(p.result.serverCpuMicrosPerRequest)} µs, PostgreSQL ${micros(p.postgresMicros)} µs): ${ratio.toFixed(2)}×`,
      );
    }
    console.log(`${name}: PostgreSQL ÷ sql.js, median of ${rounds} rounds ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`);
  }
} finally {
  for (const side of sides) await side.service.stop();
  await onServer(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
