/**
 * `npm run bench [-- --quick | --profile] [--seed N] [--statements N] [--seconds N]`
 *
 * Starts the real service from the production build (out/server/main.js, fresh temporary data
 * directory, port 0) and a raw Fastify baseline, runs every scenario against both with the same
 * load generator settings, and prints throughput, latency percentiles and the ratio to the
 * baseline; then the service's memory and data directory size, its start-up time and the longest
 * stall while a snapshot is written. The full mode repeats the scenarios at a Store preloaded with
 * 1,000,000 statements. Results go to bench-results/<timestamp>.json and .md as well; the last
 * full run's Markdown table is kept in docs/performance.md.
 *
 *   --quick        a small Store only, 2 s per run: under a minute
 *   --profile      CPU profile of the service under single-statement POSTs (see profile.ts);
 *                  `--scenario <name>` profiles another scenario (scenarios.ts), e.g. post-100
 *   --statements   the large Store's size (default 1,000,000)
 *   --seconds      seconds per load run (default 10; quick 2)
 *   --seed         the statement generator's seed (default 1)
 *   --database-url postgres://…: the scenarios on PostgreSQL with 1 and 2 service processes,
 *                  beside the embedded database and the baseline (postgres.ts)
 *   --write-costs-before µs: the write path's CPU per statement the write-costs target halves
 *                  (default: the release before the work, measured in the same run in alternating
 *                  rounds where git history allows; write-costs-run.ts)
 *   --backup-pause only the backup measures (backup-pause.ts) at a Store of --statements, for
 *                  work on backups: minutes instead of the full run's hour
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { backupPause } from './backup-pause';
import { watchingCost } from './watching';
import { runLoad, type LoadResult } from './load';
import { ADMIN_TOKEN, ROOT, dirSize, memoryOf, overlapMs, snapshotIntervals, startBaselineProcess, startServiceProcess, type Child } from './processes';
import { runPostgresBench } from './postgres';
import { analyseProfile, monotonicMicros, printProfile } from './profile';
import { scenarios, type Scenario, type StoreContext } from './scenarios';
import { statementGenerator } from './statements';
import { backupPauseLines, evaluateTargets, markdownReport, printReport, type PhaseReport, type Report, type ScenarioReport, type TargetRound } from './report';
import { warmUp, warmUpSeconds } from './warm-up';
import { measureSingleWrites, measureWriteCosts } from './write-costs-run';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
    statements: { type: 'string', default: '1000000' },
    seconds: { type: 'string' },
    scenario: { type: 'string', default: 'post-1-c10' },
    'database-url': { type: 'string' },
    'backup-pause': { type: 'boolean', default: false },
    'write-costs-before': { type: 'string' },
  },
  strict: true,
});
const quick = args.quick === true;
const seed = Number(args.seed);
const largeCount = Number(args.statements);
const seconds = Number(args.seconds ?? (quick ? 2 : 10));
const SMALL_COUNT = quick ? 5_000 : 10_000;
const SLUG = 'bench';

const started = Date.now();
const log = (message: string) => console.error(`[bench ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${message}`);

async function checked(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

async function createStore(url: string): Promise<StoreContext> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  await checked(
    await fetch(`${url}/admin/api/stores`, { method: 'POST', headers: admin, body: JSON.stringify({ slug: SLUG, name: 'Benchmark', environment: 'test' }) }),
    'create the Store',
  );
  const key = (await (
    await checked(await fetch(`${url}/admin/api/stores/${SLUG}/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench' }) }), 'create a key')
  ).json()) as { basic: string };
  // Basic: the scheme authoring tools use.
  return { slug: SLUG, authorization: `Basic ${key.basic}`, adminToken: ADMIN_TOKEN, knownIds: [] };
}

/** The share of the database's capacity a preload may fill: the scenarios' writes need room. */
const PRELOAD_CAPACITY_SHARE = 0.85;

async function capacityOf(url: string): Promise<{ usedBytes: number; limitBytes: number } | null> {
  const response = await fetch(`${url}/admin/api/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!response.ok) return null;
  return ((await response.json()) as { capacity?: { usedBytes: number; limitBytes: number } }).capacity ?? null;
}

/**
 * Batches of 1000 over HTTP, a few in flight. Keeps a sample of the ids for GET by id. Stops early
 * when the database reaches PRELOAD_CAPACITY_SHARE of its capacity (or answers 507): then the
 * Store holds fewer statements than asked, and the report says how many and why.
 */
async function preload(
  url: string,
  ctx: StoreContext,
  count: number,
  generatorSeed: number,
): Promise<{ seconds: number; statementsPerSec: number; stored: number; stoppedEarly: string | null }> {
  const generator = statementGenerator(generatorSeed);
  const batchSize = 1000;
  let sent = 0;
  let stored = 0;
  let stoppedEarly: string | null = null;
  let lastReport = Date.now();
  let lastCapacityCheck = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (sent < count && stoppedEarly === null) {
      if (Date.now() - lastCapacityCheck > 2000) {
        lastCapacityCheck = Date.now();
        const capacity = await capacityOf(url);
        if (capacity && capacity.usedBytes >= PRELOAD_CAPACITY_SHARE * capacity.limitBytes) {
          stoppedEarly = `the database reached ${Math.round((100 * capacity.usedBytes) / capacity.limitBytes)}% of its ${Math.round(capacity.limitBytes / 1024 ** 2)} MiB capacity`;
          break;
        }
      }
      // Another worker may have taken the last batch while this one awaited the capacity.
      const n = Math.min(batchSize, count - sent);
      if (n <= 0) break;
      sent += n;
      const body = JSON.stringify(Array.from({ length: n }, () => generator.next()));
      const posted = await fetch(`${url}/${ctx.slug}/xAPI/statements`, {
        method: 'POST',
        headers: { authorization: ctx.authorization, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
        body,
      });
      if (posted.status === 507) {
        stoppedEarly ??= `the service answered 507: ${(await posted.text()).slice(0, 300)}`;
        break;
      }
      const response = await checked(posted, 'preload');
      stored += n;
      const ids = (await response.json()) as string[];
      if (ctx.knownIds.length < 20_000) ctx.knownIds.push(...ids.filter((_, i) => i % 25 === 0));
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        log(`preloaded ${sent.toLocaleString('en-US')} of ${count.toLocaleString('en-US')}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  if (stoppedEarly) log(`preload stopped at ${stored.toLocaleString('en-US')} statements: ${stoppedEarly}`);
  return { seconds: elapsed, statementsPerSec: stored / elapsed, stored, stoppedEarly };
}

/** Process start → first 200 on /health, and → first 200 on a filtered statements query. */
async function measureStartup(service: Child, ctx: StoreContext): Promise<{ healthMs: number; queryMs: number }> {
  const health = await fetch(`${service.url}/health`);
  const healthMs = performance.now() - service.spawnedAt;
  if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
  const query = await fetch(`${service.url}/${ctx.slug}/xAPI/statements?verb=${encodeURIComponent('http://adlnet.gov/expapi/verbs/completed')}&limit=50`, {
    headers: { authorization: ctx.authorization, 'x-experience-api-version': '1.0.3' },
  });
  const queryMs = performance.now() - service.spawnedAt;
  if (query.status !== 200) throw new Error(`the first query answered ${query.status}: ${await query.text()}`);
  return { healthMs, queryMs };
}

/** Sends one request of the scenario, so a wrong request fails loudly instead of measuring 4xx. */
async function sanityCheck(baseUrl: string, scenario: Scenario): Promise<void> {
  const r = scenario.next();
  const response = await fetch(`${baseUrl}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
  if (response.status >= 300) throw new Error(`${scenario.name}: ${r.method} ${r.path} answered ${response.status}: ${(await response.text()).slice(0, 500)}`);
}

/** Each scenario's time spent beside a snapshot, once the stopped service has logged them all. */
function noteSnapshots(results: readonly ScenarioReport[], service: Child): void {
  const intervals = snapshotIntervals(service.log);
  for (const result of results) result.snapshotMs = overlapMs(result.runMs[0], result.runMs[1], intervals);
}

async function runScenarios(service: Child, ctx: StoreContext, baseline: Child | null, baselines: Map<string, LoadResult>) {
  const results: PhaseReport['scenarios'] = [];
  for (const scenario of scenarios(ctx, seed + 1)) {
    await sanityCheck(service.url, scenario);
    const from = performance.now();
    const result = await runLoad({
      baseUrl: service.url,
      connections: scenario.connections,
      seconds,
      next: scenario.next,
      statementsPerRequest: scenario.statementsPerRequest,
      serverPid: service.child.pid,
    });
    const runMs: [number, number] = [from, performance.now()];
    if (baseline && !baselines.has(scenario.baselineKey)) {
      baselines.set(
        scenario.baselineKey,
        await runLoad({
          baseUrl: baseline.url,
          connections: scenario.connections,
          seconds,
          next: scenario.next,
          statementsPerRequest: scenario.statementsPerRequest,
          serverPid: baseline.child.pid,
        }),
      );
    }
    const base = baselines.get(scenario.baselineKey) ?? null;
    results.push({ name: scenario.name, label: scenario.label, service: result, baselineKey: scenario.baselineKey, ratio: base ? result.requestsPerSec / base.requestsPerSec : null, runMs });
    log(`${scenario.name}: ${result.requestsPerSec.toFixed(0)} req/s, p95 ${result.p95.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms${result.non2xx ? `, ${result.non2xx} non-2xx ${JSON.stringify(result.statusCodes)}` : ''}`);
  }
  return results;
}

/** A snapshot under load at 1M takes longer than a fixed window (a background one: ~15–30 s). */
const STALL_MAX_SECONDS = 120;

/** Single POSTs on 10 connections for `seconds`, and on until `until()` holds (at most STALL_MAX_SECONDS). */
function singlePosts(service: Child, post: Scenario, seconds: number, until?: () => boolean): Promise<LoadResult> {
  return runLoad({
    baseUrl: service.url,
    connections: 10,
    seconds,
    next: post.next,
    statementsPerRequest: 1,
    serverPid: service.child.pid,
    ...(until ? { extendUntil: { done: until, maxSeconds: STALL_MAX_SECONDS } } : {}),
  });
}

/**
 * Restarts with a low snapshot threshold and sends single POSTs while snapshots are taken: for
 * `loadSeconds`, and on until a snapshot has been written (at most STALL_MAX_SECONDS), so the
 * longest stall covers a whole snapshot, not the part that fits a window.
 */
async function snapshotStall(dataDir: string, ctx: StoreContext, thresholdBytes: number, loadSeconds: number) {
  const service = await startServiceProcess({ dataDir, snapshotThresholdBytes: thresholdBytes });
  try {
    const startup = await measureStartup(service, ctx);
    const post = scenarios(ctx, seed + 2)[0]!;
    const from = performance.now();
    const written = () => service.log.filter((line) => line.at >= from && /snapshot written/.test(line.text));
    const result = await singlePosts(service, post, loadSeconds, () => written().length > 0);
    const snapshots = written().map((line) => line.text.replace(/^\[lore\] /, ''));
    return { thresholdBytes, startup, snapshots, load: result, longestStallMs: Math.max(result.max, result.longestGapMs) };
  } finally {
    await service.stop();
  }
}

/** Rounds of a target read over alternating rounds: the scenario's own run, then this many more. */
const TARGET_ROUNDS = 5;

/**
 * A target read over alternating rounds of the service and the baseline, not one run: a 3 s run
 * answers ~120 batches, and one run's batched ratio moved between 17.9× and 21.3× from one run of
 * the same build to the next; the single-POST ratio rests on one baseline run measured once
 * (86 µs in one run, 50–79 µs in the rounds after it: "Ninth round"). The scenario's own runs
 * (`first`, `baselines`) are the first round.
 */
async function targetRounds(
  name: 'post-100' | 'post-1-c10',
  service: Child,
  baseline: Child,
  ctx: StoreContext,
  first: PhaseReport['scenarios'],
  baselines: Map<string, LoadResult>,
): Promise<TargetRound[]> {
  const chosen = scenarios(ctx, seed + 6).find((s) => s.name === name)!;
  const rounds: TargetRound[] = [];
  // A round whose CPU could not be read (no /proc) is left out; the rounds are run all the same.
  const push = (ofService: LoadResult | undefined, ofBaseline: LoadResult | undefined) => {
    const serviceMicros = ofService?.serverCpuMicrosPerRequest ?? null;
    const baselineMicros = ofBaseline?.serverCpuMicrosPerRequest ?? null;
    if (!ofService || !ofBaseline || serviceMicros === null || baselineMicros === null || baselineMicros <= 0) return;
    rounds.push({ serviceMicros, baselineMicros, serviceRate: ofService.requestsPerSec, baselineRate: ofBaseline.requestsPerSec, serviceP99: ofService.p99 });
  };
  push(first.find((s) => s.name === chosen.name)?.service, baselines.get(chosen.baselineKey));
  const load = (target: Child) =>
    runLoad({ baseUrl: target.url, connections: chosen.connections, seconds, next: chosen.next, statementsPerRequest: chosen.statementsPerRequest, serverPid: target.child.pid });
  for (let round = 1; round < (quick ? 1 : TARGET_ROUNDS); round++) {
    const ofService = await load(service);
    push(ofService, await load(baseline));
  }
  return rounds;
}

function memory(service: Child) {
  return service.child.pid ? memoryOf(service.child.pid) : null;
}

async function smallPhase(baseline: Child, baselines: Map<string, LoadResult>): Promise<PhaseReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-small-'));
  try {
    let service = await startServiceProcess({ dataDir });
    let ctx: StoreContext;
    let afterPreload: PhaseReport['dataDirAfterPreload'];
    let scenarioResults: PhaseReport['scenarios'];
    let memAfter;
    let preloaded;
    let watching;
    let batches;
    let singles;
    try {
      ctx = await createStore(service.url);
      log(`small Store: preloading ${SMALL_COUNT.toLocaleString('en-US')} statements`);
      preloaded = await preload(service.url, ctx, SMALL_COUNT, seed);
      // What the statements take: the data directory after a clean stop, then on with a new process.
      await service.stop();
      afterPreload = dirSize(dataDir);
      service = await startServiceProcess({ dataDir });
      // Both processes warmed up (warm-up.ts): a new process costs ~2.5× its steady CPU at first.
      log(`small Store: warming the service and the baseline up (${warmUpSeconds(quick)} s of single POSTs, then each scenario 1 s)`);
      const warming = scenarios(ctx, seed + 3);
      await warmUp([service.url], warming, warmUpSeconds(quick));
      await warmUp([baseline.url], warming, warmUpSeconds(quick));
      scenarioResults = await runScenarios(service, ctx, baseline, baselines);
      memAfter = memory(service);
      log('small Store: batched POSTs, alternating rounds against the baseline');
      batches = await targetRounds('post-100', service, baseline, ctx, scenarioResults, baselines);
      log('small Store: single POSTs, alternating rounds against the baseline');
      singles = await targetRounds('post-1-c10', service, baseline, ctx, scenarioResults, baselines);
      log('small Store: what ten open console streams cost single POSTs');
      watching = await watchingCost(service, scenarios(ctx, seed + 5)[0]!, seconds, quick ? 2 : 5);
    } finally {
      await service.stop();
    }
    if (scenarioResults) noteSnapshots(scenarioResults, service);
    const size = dirSize(dataDir);
    log('small Store: snapshot stall');
    const stall = await snapshotStall(dataDir, ctx, 512 * 1024, quick ? 4 : 10);
    log('small Store: backup pause');
    const backups = await backupPause({ dataDir, ctx, loadSeconds: quick ? 4 : 10, seed: seed + 4 });
    return {
      name: 'small',
      statements: SMALL_COUNT,
      preload: preloaded,
      scenarios: scenarioResults,
      memory: memAfter,
      dataDirAfterPreload: afterPreload,
      dataDir: size,
      startup: stall.startup,
      stall,
      backups,
      watching,
      batchRounds: batches,
      singleRounds: singles,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function largePhase(baselines: Map<string, LoadResult>): Promise<PhaseReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-large-'));
  try {
    // Preload with a high snapshot threshold: one snapshot at the end instead of one per 64 MiB.
    let ctx: StoreContext;
    let preloaded;
    let stopSeconds = 0;
    {
      const service = await startServiceProcess({ dataDir, snapshotThresholdBytes: 4 * 1024 ** 3 });
      try {
        ctx = await createStore(service.url);
        log(`large Store: preloading ${largeCount.toLocaleString('en-US')} statements`);
        preloaded = await preload(service.url, ctx, largeCount, seed + 10);
        log(`preloaded in ${preloaded.seconds.toFixed(0)} s (${preloaded.statementsPerSec.toFixed(0)} statements/s); stopping (snapshot)`);
      } finally {
        const t = performance.now();
        await service.stop();
        stopSeconds = (performance.now() - t) / 1000;
        log(`stopped in ${stopSeconds.toFixed(1)} s`);
      }
    }
    const afterPreload = dirSize(dataDir);
    const snapshotBytes = afterPreload.files['lore.sqlite'] ?? 0;
    const service = await startServiceProcess({ dataDir });
    let scenarioResults;
    let startup;
    let memBefore;
    let memAfter;
    try {
      startup = await measureStartup(service, ctx);
      log(`started with ${preloaded.stored.toLocaleString('en-US')} statements: /health after ${startup.healthMs.toFixed(0)} ms, a query after ${startup.queryMs.toFixed(0)} ms`);
      memBefore = memory(service);
      log('large Store: warming the service up');
      await warmUp([service.url], scenarios(ctx, seed + 3), warmUpSeconds(quick));
      scenarioResults = await runScenarios(service, ctx, null, baselines);
      memAfter = memory(service);
    } finally {
      await service.stop();
    }
    if (scenarioResults) noteSnapshots(scenarioResults, service);
    const size = dirSize(dataDir);
    log('large Store: snapshot stall');
    const stall = await snapshotStall(dataDir, ctx, 16 * 1024 * 1024, 20);
    log('large Store: backup pause');
    const backups = await backupPause({ dataDir, ctx, loadSeconds: 20, seed: seed + 4 });
    return {
      backups,
      name: 'large',
      statements: preloaded.stored,
      stopSecondsAfterPreload: stopSeconds,
      preload: preloaded,
      scenarios: scenarioResults,
      memoryAtStart: memBefore,
      memory: memAfter,
      snapshotBytes,
      dataDirAfterPreload: afterPreload,
      dataDir: size,
      startup,
      stall,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function profileRun(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-profile-'));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const profileDir = join(ROOT, 'bench-results', `profile-${stamp}`);
  mkdirSync(profileDir, { recursive: true });
  let window: { fromUs: number; toUs: number } | undefined;
  try {
    const service = await startServiceProcess({ dataDir, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
    try {
      const ctx = await createStore(service.url);
      await preload(service.url, ctx, 5_000, seed);
      const all = scenarios(ctx, seed + 1);
      const post = all.find((s) => s.name === args.scenario);
      if (!post) throw new Error(`--scenario must be one of ${all.map((s) => s.name).join(', ')}`);
      await runLoad({ baseUrl: service.url, connections: post.connections, seconds: 1, next: post.next });
      // Only the load window counts: start-up, preload and warm-up are left out of the analysis.
      const fromUs = monotonicMicros();
      const result = await runLoad({
        baseUrl: service.url,
        connections: post.connections,
        seconds: Number(args.seconds ?? 10),
        next: post.next,
        statementsPerRequest: post.statementsPerRequest,
        serverPid: service.child.pid,
      });
      window = { fromUs, toUs: monotonicMicros() };
      log(
        `profiled ${post.name}: ${result.requestsPerSec.toFixed(0)} requests/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
          `service CPU ${result.serverCpuMicrosPerRequest?.toFixed(0) ?? '—'} µs per request`,
      );
    } finally {
      await service.stop();
    }
    const analysis = analyseProfile(profileDir, window);
    printProfile(analysis);
    writeFileSync(join(profileDir, 'summary.json'), JSON.stringify(analysis, null, 2));
    log(`profile and summary in ${profileDir}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `--backup-pause`: a Store of --statements, then the backup measures at it (load of --seconds, default as the phases'). */
async function backupPauseRun(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-backup-pause-'));
  try {
    let ctx: StoreContext;
    const service = await startServiceProcess({ dataDir, snapshotThresholdBytes: 4 * 1024 ** 3 });
    try {
      ctx = await createStore(service.url);
      log(`preloading ${largeCount.toLocaleString('en-US')} statements`);
      const preloaded = await preload(service.url, ctx, largeCount, seed + 10);
      log(`preloaded ${preloaded.stored.toLocaleString('en-US')} in ${preloaded.seconds.toFixed(0)} s; stopping (snapshot)`);
    } finally {
      await service.stop();
    }
    const snapshotBytes = dirSize(dataDir).files['lore.sqlite'] ?? 0;
    log(`backup pause at ${Math.round(snapshotBytes / 1024 ** 2)} MB`);
    const loadSeconds = args.seconds ? seconds : largeCount > SMALL_COUNT ? 20 : 10;
    const backups = await backupPause({ dataDir, ctx, loadSeconds, seed: seed + 4 });
    console.log([`\nBackup pause at ${largeCount.toLocaleString('en-US')} statements (snapshot ${Math.round(snapshotBytes / 1024 ** 2)} MB), ${loadSeconds} s of load per run`, ...backupPauseLines(backups)].join('\n'));
    mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
    const file = join(ROOT, 'bench-results', `${new Date(started).toISOString().replace(/[:.]/g, '-')}-backup-pause.json`);
    writeFileSync(file, JSON.stringify({ statements: largeCount, snapshotBytes, loadSeconds, machine: { cpus: cpus().length, loadAverageAtEnd: loadavg() }, backups }, null, 2));
    console.log(`\nwritten to ${file}`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (args['database-url']) {
    await runPostgresBench({ databaseUrl: args['database-url'], seconds, preloadCount: SMALL_COUNT, seed, warmUpSeconds: warmUpSeconds(quick), log });
    return;
  }
  if (args.profile) return profileRun();
  if (args['backup-pause']) return backupPauseRun();
  const baseline = await startBaselineProcess();
  const baselines = new Map<string, LoadResult>();
  const phases: PhaseReport[] = [];
  try {
    phases.push(await smallPhase(baseline, baselines));
  } finally {
    await baseline.stop();
  }
  log('write path without HTTP (write-costs)');
  const given = args['write-costs-before'] ? { micros: Number(args['write-costs-before']), measured: 'given with --write-costs-before' } : undefined;
  const writeCosts = await measureWriteCosts(quick ? 10_000 : 30_000, quick ? 1 : 4, given);
  if (writeCosts) writeCosts.singleStatementMicros = await measureSingleWrites(quick ? 5_000 : 20_000);
  if (!quick) phases.push(await largePhase(baselines));
  const report: Report = {
    startedAt: new Date(started).toISOString(),
    mode: quick ? 'quick' : 'full',
    seed,
    secondsPerRun: seconds,
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memoryBytes: totalmem(), node: process.version, loadAverageAtEnd: loadavg() },
    baselines: Object.fromEntries(baselines),
    phases,
    writeCosts,
    targets: [],
    durationSeconds: 0,
  };
  report.targets = evaluateTargets(report);
  report.durationSeconds = (Date.now() - started) / 1000;
  printReport(report);
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  const file = join(ROOT, 'bench-results', `${report.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(report, null, 2));
  writeFileSync(file.replace(/\.json$/, '.md'), markdownReport(report));
  console.log(`\nwritten to ${file} and .md beside it (${report.durationSeconds.toFixed(0)} s)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
