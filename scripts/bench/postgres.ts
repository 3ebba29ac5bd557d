/**
 * `npm run bench -- --database-url postgres://… [--quick] [--seconds N]`
 *
 * The benchmark's scenarios (scenarios.ts) against the service on PostgreSQL, with 1 and then 2
 * service processes on one database (the load split evenly between them), beside the raw Fastify
 * baseline and the embedded database measured in the same run. For each: requests and
 * statements per second, latency, the ratio to the baseline, and CPU time per request in the
 * service processes (Node) and in PostgreSQL's processes (when the server runs on this machine:
 * the CPU of that server's processes is read from /proc before and after each run, postgres-cpu.ts).
 *
 * Each configuration gets a database of its own, created and dropped on the server the URL names
 * (its user needs CREATEDB). Results go to bench-results/<timestamp>-postgres.json too.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { cpuMicros, runLoad, type LoadResult } from './load';
import { postmasterPid, serverCpuMicros } from './postgres-cpu';
import { ADMIN_TOKEN, ROOT, startBaselineProcess, startServiceProcess, type Child } from './processes';
import { warmUp } from './warm-up';
import { preload } from './read-store';
import { markdownTable } from './report';
import { scenarios, type Scenario, type StoreContext } from './scenarios';

export interface PostgresBenchOptions {
  databaseUrl: string;
  seconds: number;
  preloadCount: number;
  seed: number;
  /** Seconds of single POSTs that warm each process up before it is measured (warm-up.ts). */
  warmUpSeconds: number;
  log: (message: string) => void;
}

export interface Measured {
  requestsPerSec: number;
  statementsPerSec: number | null;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
  /** Service CPU (all processes) per request, µs. */
  nodeMicrosPerRequest: number | null;
  /** PostgreSQL CPU (all its processes on this machine) per request, µs; null when not local. */
  postgresMicrosPerRequest: number | null;
}

interface Row {
  configuration: string;
  scenario: string;
  label: string;
  statementsPerRequest: number;
  measured: Measured;
  ratio: number | null;
}

export const SLUG = 'bench';

/** A database `name` created on the server of `serverUrl` for `work` (given its URL), dropped after. */
export async function withDatabase<T>(serverUrl: string, name: string, work: (url: string) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    return await work(url.toString());
  } finally {
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await cleanup.end();
  }
}

export async function createStore(url: string): Promise<StoreContext> {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const store = await fetch(`${url}/admin/api/stores`, { method: 'POST', headers, body: JSON.stringify({ slug: SLUG, name: 'Benchmark', environment: 'test' }) });
  if (!store.ok) throw new Error(`create the Store: ${store.status} ${await store.text()}`);
  const key = await fetch(`${url}/admin/api/stores/${SLUG}/keys`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) });
  if (!key.ok) throw new Error(`create a key: ${key.status} ${await key.text()}`);
  return { slug: SLUG, authorization: `Basic ${((await key.json()) as { basic: string }).basic}`, adminToken: ADMIN_TOKEN, knownIds: [] };
}

/** One scenario on every process at once, its connections split between them. */
export async function measure(processes: Child[], scenario: Scenario, seconds: number, postmaster: number | null): Promise<Measured> {
  const withPostgres = postmaster !== null;
  const nodeBefore = processes.map((p) => cpuMicros(p.child.pid));
  const postgresBefore = withPostgres ? serverCpuMicros(postmaster) : 0;
  const connections = Math.max(1, Math.round(scenario.connections / processes.length));
  const results: LoadResult[] = await Promise.all(
    processes.map((p) => runLoad({ baseUrl: p.url, connections, seconds, next: scenario.next, statementsPerRequest: scenario.statementsPerRequest })),
  );
  const postgresAfter = withPostgres ? serverCpuMicros(postmaster) : 0;
  const nodeAfter = processes.map((p) => cpuMicros(p.child.pid));
  const requests = results.reduce((sum, r) => sum + r.requests, 0);
  const nodeMicros = nodeBefore.every((v) => v !== null) && nodeAfter.every((v) => v !== null) ? nodeAfter.reduce((s, v, i) => s + v! - nodeBefore[i]!, 0) : null;
  const requestsPerSec = results.reduce((sum, r) => sum + r.requestsPerSec, 0);
  return {
    requestsPerSec,
    statementsPerSec: scenario.statementsPerRequest > 0 ? requestsPerSec * scenario.statementsPerRequest : null,
    p50: Math.max(...results.map((r) => r.p50)),
    p95: Math.max(...results.map((r) => r.p95)),
    p99: Math.max(...results.map((r) => r.p99)),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    nodeMicrosPerRequest: nodeMicros === null || requests === 0 ? null : nodeMicros / requests,
    postgresMicrosPerRequest: withPostgres && requests > 0 ? (postgresAfter - postgresBefore) / requests : null,
  };
}

async function runConfiguration(
  name: string,
  env: (dataDir: string) => Record<string, string>,
  processCount: number,
  options: PostgresBenchOptions,
  baselines: Map<string, Measured>,
  postmaster: number | null,
): Promise<Row[]> {
  const dirs = Array.from({ length: processCount }, () => mkdtempSync(join(tmpdir(), 'lore-bench-pg-')));
  const processes: Child[] = [];
  try {
    for (const dataDir of dirs) processes.push(await startServiceProcess({ dataDir, env: env(dataDir) }));
    const ctx = await createStore(processes[0]!.url);
    options.log(`${name}: preloading ${options.preloadCount.toLocaleString('en-US')} statements`);
    await preload(
      processes.map((p) => p.url),
      ctx,
      options.preloadCount,
      options.seed,
    );
    options.log(`${name}: warming up`);
    await warmUp(
      processes.map((p) => p.url),
      scenarios(ctx, options.seed + 3),
      options.warmUpSeconds,
    );
    // The tables vacuumed and analysed now, not by autovacuum during the first measured run (its
    // CPU would be counted as that run's, and the machine shared with it).
    const databaseUrl = env(dirs[0]!)['LRS_DATABASE_URL'];
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query('VACUUM ANALYZE').finally(() => client.end());
    }
    const rows: Row[] = [];
    for (const scenario of scenarios(ctx, options.seed + 1)) {
      const measured = await measure(processes, scenario, options.seconds, postmaster);
      const base = baselines.get(scenario.baselineKey) ?? null;
      rows.push({ configuration: name, scenario: scenario.name, label: scenario.label, statementsPerRequest: scenario.statementsPerRequest, measured, ratio: base ? measured.requestsPerSec / base.requestsPerSec : null });
      options.log(`${name} ${scenario.name}: ${measured.requestsPerSec.toFixed(0)} req/s${measured.non2xx ? `, ${measured.non2xx} non-2xx` : ''}`);
    }
    return rows;
  } finally {
    for (const p of processes) await p.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

function format(n: number | null, digits = 0): string {
  return n === null ? '-' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

const SQLJS = 'sql.js, 1 process';
const POSTGRES_ONE = 'PostgreSQL, 1 process';
const POSTGRES_TWO = 'PostgreSQL, 2 processes';
const PER_STATEMENT_NOTE = '(µs/stmt: CPU time per request divided by the statements it carries; reads count per request.)';

/** The table's rows, header first: printed to the console and written as Markdown alike. */
function tableRows(rows: Row[]): string[][] {
  const header = ['configuration', 'scenario', 'req/s', 'vs baseline', 'stmts/s', 'p50 ms', 'p99 ms', 'Node µs/stmt', 'PostgreSQL µs/stmt'];
  return [
    header,
    ...rows.map((r) => {
      const perStatement = (micros: number | null) => (micros === null ? null : micros / Math.max(1, r.statementsPerRequest));
      return [
        r.configuration,
        r.label,
        format(r.measured.requestsPerSec),
        r.ratio === null ? '-' : `${r.ratio.toFixed(2)}×`,
        format(r.measured.statementsPerSec),
        format(r.measured.p50, 1),
        format(r.measured.p99, 1),
        format(perStatement(r.measured.nodeMicrosPerRequest)),
        format(perStatement(r.measured.postgresMicrosPerRequest)),
      ];
    }),
  ];
}

/**
 * The issue's ratios per scenario: requests a second on PostgreSQL with one process ÷ the
 * embedded storage's (single POST ≥ 0.60, batches ≥ 0.50), and with two processes ÷ one (≥ 1.3
 * where the database is not the bottleneck).
 */
function ratioRows(rows: Row[]): string[][] {
  const rate = (configuration: string, scenario: string) => rows.find((r) => r.configuration === configuration && r.scenario === scenario)?.measured.requestsPerSec ?? null;
  const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? '-' : `${(a / b).toFixed(2)}×`);
  const labels = [...new Map(rows.map((r) => [r.scenario, r.label])).entries()];
  return [
    ['scenario', 'PostgreSQL ÷ sql.js', '2 processes ÷ 1'],
    ...labels.map(([scenario, label]) => [
      label,
      ratio(rate(POSTGRES_ONE, scenario), rate(SQLJS, scenario)),
      ratio(rate(POSTGRES_TWO, scenario), rate(POSTGRES_ONE, scenario)),
    ]),
  ];
}

function printTable(rows: Row[]): void {
  const lines = tableRows(rows);
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  console.log(lines.map((cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n'));
  console.log(PER_STATEMENT_NOTE);
  console.log(ratioRows(rows).map((cells) => cells.join('  ')).join('\n'));
}

function markdown(rows: Row[], title: string): string {
  const cpu = cpus();
  return [
    `## ${title}`,
    '',
    `Run ${new Date().toISOString()} on ${String(cpu.length)} × ${cpu[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 1024 ** 2).toLocaleString('en-US')} MB memory, ` +
      `Node ${process.version}, load average at the end ${JSON.stringify(loadavg())}. The baseline is raw Fastify parsing the same bodies (scripts/bench/baseline-server.ts), run first.`,
    '',
    markdownTable(tableRows(rows)),
    '',
    PER_STATEMENT_NOTE,
    '',
    markdownTable(ratioRows(rows)),
    '',
  ].join('\n');
}

export async function runPostgresBench(options: PostgresBenchOptions): Promise<void> {
  const baseline = await startBaselineProcess();
  const baselines = new Map<string, Measured>();
  const rows: Row[] = [];
  const postmaster = await postmasterPid(options.databaseUrl);
  if (postmaster === null) options.log('the PostgreSQL server does not run on this machine: its CPU is not measured');
  try {
    // The baseline with the same scenarios (one per body shape), on one process.
    const sample: StoreContext = { slug: SLUG, authorization: 'Basic eDp4', adminToken: ADMIN_TOKEN, knownIds: ['00000000-0000-4000-8000-000000000000'] };
    await warmUp([baseline.url], scenarios(sample, options.seed + 3), options.warmUpSeconds);
    for (const scenario of scenarios(sample, options.seed + 1)) {
      if (baselines.has(scenario.baselineKey)) continue;
      baselines.set(scenario.baselineKey, await measure([baseline], scenario, options.seconds, null));
    }
  } finally {
    await baseline.stop();
  }
  const stamp = Date.now().toString(36);
  rows.push(...(await runConfiguration(SQLJS, () => ({}), 1, options, baselines, null)));
  for (const count of [1, 2]) {
    rows.push(
      ...(await withDatabase(options.databaseUrl, `lore_bench_${stamp}_${count}`, (url) =>
        runConfiguration(count === 1 ? POSTGRES_ONE : POSTGRES_TWO, () => ({ LRS_DATABASE_URL: url }), count, options, baselines, postmaster),
      )),
    );
  }
  const title = `Lore on PostgreSQL: ${cpus().length} cores, ${options.seconds} s per run, ${options.preloadCount.toLocaleString('en-US')} statements preloaded`;
  console.log(`\n== ${title} ==`);
  printTable(rows);
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  const file = join(ROOT, 'bench-results', `${new Date().toISOString().replace(/[:.]/g, '-')}-postgres.json`);
  writeFileSync(file, JSON.stringify({ options: { ...options, databaseUrl: new URL(options.databaseUrl).host, log: undefined }, rows }, null, 2));
  writeFileSync(file.replace(/\.json$/, '.md'), markdown(rows, title));
  console.log(`\nresults: ${file} (and .md)`);
}
