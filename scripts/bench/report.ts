/** The benchmark's report: its JSON shape, the targets it is read against, and the printed table. */
import type { LoadResult } from './load';
import { median } from './median';

export interface Memory {
  rss: number;
  peak: number;
}

/** One round of a target read over alternating rounds: the service's run, then the baseline's. */
export interface TargetRound {
  serviceMicros: number;
  baselineMicros: number;
  /** Requests a second of each, and the service's p99 (ms): the single-POST throughput target. */
  serviceRate: number;
  baselineRate: number;
  serviceP99: number;
}

export interface ScenarioReport {
  name: string;
  label: string;
  service: LoadResult;
  baselineKey: string;
  ratio: number | null;
  /** When the run went, on the bench's performance.now() clock. */
  runMs: [from: number, to: number];
  /**
   * How much of the run the service spent writing a snapshot (set once the service has stopped
   * and logged them all): that work runs in the service's process, so it is in the run's CPU per
   * request and its latencies. A snapshot at 1M statements takes many seconds in the background.
   */
  snapshotMs?: number;
}

export interface PhaseReport {
  name: 'small' | 'large';
  statements: number;
  preload: { seconds: number; statementsPerSec: number; stored: number; stoppedEarly: string | null };
  /** Large phase: how long the graceful stop (final snapshot) after the preload took. */
  stopSecondsAfterPreload?: number;
  scenarios: ScenarioReport[];
  memoryAtStart?: Memory | null;
  memory: Memory | null | undefined;
  /** lore.sqlite right after the preload (large phase). */
  snapshotBytes?: number;
  /** The data directory right after the preload's clean stop: what the statements preloaded take. */
  dataDirAfterPreload?: { total: number; files: Record<string, number> };
  dataDir: { total: number; files: Record<string, number> };
  startup: { healthMs: number; queryMs: number };
  /** Single POSTs with no backup, a download backup, scheduled backups (backup-pause.ts). */
  backups: BackupPauseReport;
  /** Single POSTs with no console stream open and with ten (watching.ts); small phase. */
  watching?: WatchingReport;
  /**
   * Small phase: CPU per batched POST of 100, the service's and the baseline's, in alternating
   * rounds (the scenario's own runs first); the target is read against the median of their ratios.
   */
  batchRounds?: TargetRound[];
  /** Small phase: single POSTs on 10 connections in alternating rounds, read the same way. */
  singleRounds?: TargetRound[];
  stall: {
    thresholdBytes: number;
    startup: { healthMs: number; queryMs: number };
    snapshots: string[];
    load: LoadResult;
    longestStallMs: number;
  };
}

export interface BackupRunReport {
  kind: string;
  backups: number;
  /** The clients' longest stall: latency, or time without a response. */
  longestStallMs: number;
  statementsPerSec: number | null;
  /**
   * The service's event loop held at most (backup-schedule.ts's measure): a scheduled backup's own
   * figure; with no backup, the loop probe's over the times the scheduled backups ran (the
   * baseline); for a download, the loop probe's while it was taken.
   */
  heldMs: number | null;
  /** The loop probe's figure over those times (for a scheduled backup: beside its own). */
  probeHeldMs: number | null;
  /** The loop probe's figure over the whole run. */
  probeWholeRunMs: number | null;
}

export interface BackupPauseReport {
  none: BackupRunReport;
  download: BackupRunReport;
  scheduled: BackupRunReport;
  /** When the scheduled backups ran, in ms after the load started. */
  backupSpansMs: Array<{ from: number; to: number }>;
}

export interface WatchingRun {
  requestsPerSec: number;
  cpuMicrosPerRequest: number | null;
}

/** One round of watching.ts: a run with no stream open, one with ten, one with none again. */
export interface WatchingRound {
  noneBefore: WatchingRun;
  watched: WatchingRun;
  noneAfter: WatchingRun;
}

/** A round's throughput with none open: the mean of the runs before and after the watched one. */
export function noneRequestsPerSec(round: WatchingRound): number {
  return (round.noneBefore.requestsPerSec + round.noneAfter.requestsPerSec) / 2;
}

/** A round's throughput with the streams open ÷ with none around it: what the target reads. */
export function watchedRatio(round: WatchingRound): number {
  return round.watched.requestsPerSec / noneRequestsPerSec(round);
}

export interface WatchingReport {
  streams: number;
  /** Medians over the rounds (reports before the rounds: the means of two pairs). */
  noneRequestsPerSec: number;
  watchedRequestsPerSec: number;
  /** Throughput with the streams open ÷ with none around it: the median of the rounds' ratios. */
  ratio: number;
  /** Messages each stream carried per second of load: coalesced, a few whatever the rate. */
  messagesPerStreamPerSec: number;
  /** Absent in reports written before the rounds existed. */
  rounds?: WatchingRound[];
}

export interface Target {
  target: string;
  value: string;
  verdict: 'PASS' | 'MISS' | 'n/a';
}

export interface Report {
  startedAt: string;
  mode: 'quick' | 'full';
  seed: number;
  secondsPerRun: number;
  machine: Record<string, unknown>;
  baselines: Record<string, LoadResult>;
  phases: PhaseReport[];
  writeCosts?: WriteCostsReport | null;
  targets: Target[];
  durationSeconds: number;
}

const MB = 1024 * 1024;
const fmt = (n: number | null | undefined, digits = 0) => (n == null || Number.isNaN(n) ? '—' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
const ms = (n: number) => fmt(n, n < 10 ? 2 : 1);
const mb = (bytes: number | undefined) => (bytes == null ? '—' : `${fmt(bytes / MB, 0)} MB`);

const ratio = (value: number | null, baseline: number | null) => (value === null || baseline === null || baseline === 0 ? '—' : `${fmt(value / baseline, 2)}×`);

function scenario(phase: PhaseReport | undefined, name: string) {
  return phase?.scenarios.find((s) => s.name === name);
}

function verdict(ok: boolean | null): Target['verdict'] {
  return ok === null ? 'n/a' : ok ? 'PASS' : 'MISS';
}

/**
 * The figures the targets are read against that are not a load run's (scripts/bench/write-costs.ts,
 * run by the benchmark as a child process).
 */
export interface WriteCostsReport {
  /** CPU per statement of the whole write path without HTTP (recordStatements, batches of 100). */
  cpuMicrosPerStatement: number;
  wallMicrosPerStatement: number;
  /** The figure the target halves: the release before the work, measured in the same run where git allows. */
  beforeMicrosPerStatement: number;
  beforeMeasured: string;
  /** This build's CPU per statement ÷ the release before's: the median of the alternating rounds' ratios. */
  ratio: number;
  /** CPU per statement of single-statement writes without HTTP, 10 in flight (storage-micro.ts). */
  singleStatementMicros?: number;
  /**
   * The engine floor (a statement's row and postings, no JavaScript of ours) on sql.js and on the
   * SQLite compiled into Node (node:sqlite; null when this Node has none): how far a native engine
   * would move the write path.
   */
  engineFloorMicros?: { sqljs: number; native: number | null };
}

/** The connections every read scenario runs with (scenarios.ts). */
const READ_CONNECTIONS = 10;

/** A 3 GiB data directory: the capacity a laptop's Store is sized against. */
const THREE_GIB = 3 * 1024 ** 3;

/** Bytes per statement of the data directory right after a clean stop (snapshot written, journal empty). */
function bytesPerStatement(phase: PhaseReport | undefined): number | null {
  if (!phase?.dataDirAfterPreload || phase.preload.stored === 0) return null;
  return phase.dataDirAfterPreload.total / phase.preload.stored;
}

/** Service CPU per request ÷ the raw baseline's, for a scenario measured against one. */
function cpuRatio(report: Report, s: ReturnType<typeof scenario>): { service: number; baseline: number; ratio: number } | null {
  const base = s ? report.baselines[s.baselineKey] : undefined;
  const service = s?.service.serverCpuMicrosPerRequest;
  const baseline = base?.serverCpuMicrosPerRequest;
  if (service == null || baseline == null || baseline === 0) return null;
  return { service, baseline, ratio: service / baseline };
}

/**
 * The rounds a target is read over: the alternating rounds where they ran, else the scenario's
 * one run against its baseline (a quick run, or a report written before the rounds existed).
 */
function roundsOrRun(report: Report, rounds: TargetRound[] | undefined, s: ReturnType<typeof scenario>): TargetRound[] {
  if (rounds?.length) return rounds;
  const cpu = cpuRatio(report, s);
  const base = s ? report.baselines[s.baselineKey] : undefined;
  if (!s || !cpu || !base) return [];
  return [{ serviceMicros: cpu.service, baselineMicros: cpu.baseline, serviceRate: s.service.requestsPerSec, baselineRate: base.requestsPerSec, serviceP99: s.service.p99 }];
}

/** "; median of N alternating rounds, lowest–highest" for several rounds; nothing for one. */
function roundsText(values: number[], unit: string): string {
  return values.length > 1 ? `; median of ${values.length} alternating rounds, ${fmt(Math.min(...values), 1)}–${fmt(Math.max(...values), 1)}${unit}` : '';
}

/** The watched rounds' spread, and beside it the spread of the same load run twice with none open. */
function watchingRoundsText(rounds: WatchingRound[]): string {
  if (rounds.length < 2) return '';
  const percent = (a: WatchingRun, b: WatchingRun) => (100 * a.requestsPerSec) / b.requestsPerSec;
  const watched = rounds.map((r) => 100 * watchedRatio(r));
  const noneAgain = rounds.map((r) => percent(r.noneAfter, r.noneBefore));
  return `${roundsText(watched, '%')}; none after ÷ none before ${fmt(Math.min(...noneAgain), 1)}–${fmt(Math.max(...noneAgain), 1)}%`;
}

export function evaluateTargets(report: Report): Target[] {
  const small = report.phases.find((p) => p.name === 'small');
  const large = report.phases.find((p) => p.name === 'large');
  const targets: Target[] = [];
  const post = scenario(small, 'post-1-c10');
  const singles = roundsOrRun(report, small?.singleRounds, post);
  const singleRatios = singles.map((r) => r.serviceMicros / r.baselineMicros);
  const singleRatio = singles.length > 0 ? median(singleRatios) : null;
  const singleBaselineMicros = singles.length > 0 ? median(singles.map((r) => r.baselineMicros)) : 0;
  targets.push({
    target: 'single POST, 10 conn: service CPU per request ≤ 7× the baseline\'s',
    // Beside it, what the write alone costs without HTTP: over the whole budget, no HTTP work can meet it.
    value:
      singleRatio !== null
        ? `${fmt(median(singles.map((r) => r.serviceMicros)))} vs ${fmt(singleBaselineMicros)} µs (${fmt(singleRatio, 1)}×${roundsText(singleRatios, '×')})` +
          (report.writeCosts?.singleStatementMicros != null
            ? `; the write alone, without HTTP: ${fmt(report.writeCosts.singleStatementMicros)} µs against a budget of ${fmt(7 * singleBaselineMicros)} µs`
            : '')
        : '—',
    verdict: verdict(singleRatio !== null ? singleRatio <= 7 : null),
  });
  const shares = singles.map((r) => (100 * r.serviceRate) / r.baselineRate);
  const share = singles.length > 0 ? median(shares) : null;
  const p99 = singles.length > 0 ? median(singles.map((r) => r.serviceP99)) : null;
  targets.push({
    target: 'single POST, 10 conn: throughput ≥ 15% of the baseline\'s, p99 ≤ 8 ms',
    value:
      share !== null && p99 !== null
        ? `${fmt(median(singles.map((r) => r.serviceRate)))}/s = ${fmt(share, 1)}%, p99 ${ms(p99)} ms${roundsText(shares, '%')}`
        : '—',
    verdict: verdict(share !== null && p99 !== null ? share >= 15 && p99 <= 8 : null),
  });
  const batch = scenario(small, 'post-100');
  const perStatement = (micros: number) => `${fmt(micros / (batch?.service.statementsPerSec && batch.service.requestsPerSec ? batch.service.statementsPerSec / batch.service.requestsPerSec : 1), 1)}`;
  const batches = roundsOrRun(report, small?.batchRounds, batch);
  const batchRatios = batches.map((r) => r.serviceMicros / r.baselineMicros);
  const batchRatio = batches.length > 0 ? median(batchRatios) : null;
  targets.push({
    target: 'batched POST of 100: service CPU per statement ≤ 18× the baseline parsing the same body',
    value:
      batchRatio !== null
        ? `${perStatement(median(batches.map((r) => r.serviceMicros)))} vs ${perStatement(median(batches.map((r) => r.baselineMicros)))} µs (${fmt(batchRatio, 1)}×${roundsText(batchRatios, '×')})`
        : '—',
    verdict: verdict(batchRatio !== null ? batchRatio <= 18 : null),
  });
  const costs = report.writeCosts;
  targets.push({
    target: 'whole write path without HTTP (write-costs): CPU per statement ≤ 50% of the figure before',
    value: costs
      ? `${fmt(costs.cpuMicrosPerStatement, 1)} vs ${fmt(costs.beforeMicrosPerStatement, 1)} µs (${fmt(100 * costs.ratio, 0)}%; before: ${costs.beforeMeasured})`
      : '—',
    verdict: verdict(costs ? costs.ratio <= 0.5 : null),
  });
  const watching = small?.watching;
  targets.push({
    target: 'single POST, 10 conn, ten console streams open: ≥ 95% of none open',
    value: watching
      ? `${fmt(watching.watchedRequestsPerSec)} vs ${fmt(watching.noneRequestsPerSec)} req/s (${fmt(watching.ratio * 100, 1)}%${watchingRoundsText(watching.rounds ?? [])}), ${fmt(watching.messagesPerStreamPerSec, 1)} messages/s per stream`
      : '—',
    verdict: verdict(watching ? watching.ratio >= 0.95 : null),
  });
  /** The scenario with the highest p95 among `names`, null before the large phase. */
  const worst = (names: string[]) => {
    const found = names.map((n) => scenario(large, n)).filter((s) => s !== undefined);
    return found.length ? found.reduce((a, b) => (b.service.p95 > a.service.p95 ? b : a)) : null;
  };
  // Little's law: with 10 connections on the service's one thread, the mean latency is at least
  // 10 × its time per request; the CPU per request says how far the p95 target is from the code.
  const p95WithQueue = (s: NonNullable<ReturnType<typeof worst>>) => {
    const cpu = s.service.serverCpuMicrosPerRequest;
    const queue = cpu != null ? ` (its CPU ${fmt(cpu)} µs a request: ${READ_CONNECTIONS} connections wait ~${ms((READ_CONNECTIONS * cpu) / 1000)} ms on average)` : '';
    const snapshot = s.snapshotMs ? `; a snapshot was being written for ${fmt(s.snapshotMs)} ms of its ${fmt(s.runMs[1] - s.runMs[0])} ms run` : '';
    return `${ms(s.service.p95)} ms${queue}${snapshot}`;
  };
  // Targets are set at 1M statements; a run with --statements N says N instead.
  const n = large?.statements ?? 1_000_000;
  const at = n % 1_000_000 === 0 ? `${n / 1_000_000}M` : fmt(n);
  const get = worst(['get-agent', 'get-activity', 'get-verb']);
  targets.push({ target: `filtered GET limit 50 at ${at}: p95 ≤ 5 ms (worst of agent, activity, verb)`, value: get === null ? 'full mode' : p95WithQueue(get), verdict: verdict(get === null ? null : get.service.p95 <= 5) });
  const explorer = worst(['explorer-agent', 'explorer-activity']);
  targets.push({ target: `Explorer search at ${at}: p95 ≤ 15 ms (worst filter)`, value: explorer === null ? 'full mode' : p95WithQueue(explorer), verdict: verdict(explorer === null ? null : explorer.service.p95 <= 15) });
  const typedP95 = worst(['explorer-actor-name', 'explorer-verb-word', 'explorer-activity-word'])?.service.p95 ?? null;
  targets.push({
    target: `Explorer search by a name or word at ${at}: p95 ≤ 100 ms (worst of learner, verb, Activity)`,
    value: typedP95 === null ? 'full mode' : `${ms(typedP95)} ms`,
    verdict: verdict(typedP95 === null ? null : typedP95 <= 100),
  });
  // Sizes and backups are read at the largest Store the run had.
  const largest = large ?? small;
  const bytes = bytesPerStatement(largest);
  targets.push({
    target: `bytes per statement, data directory after a clean stop at ${fmt(largest?.preload.stored)} (the bench's statements): ≤ 1,200`,
    value: bytes === null ? '—' : `${fmt(bytes)} bytes`,
    verdict: verdict(bytes === null ? null : bytes <= 1200),
  });
  targets.push({
    target: 'statements a 3 GiB data directory holds (at that size per statement): ≥ 2.5 M',
    value: bytes === null ? '—' : `${fmt(THREE_GIB / bytes / 1e6, 2)} M`,
    verdict: verdict(bytes === null ? null : THREE_GIB / bytes >= 2_500_000),
  });
  const rss = large?.memory?.rss;
  targets.push({
    target: `service RSS with ${at}: ≤ 1,500 MB`,
    value: large && rss ? `${mb(rss)}${large.snapshotBytes ? ` (snapshot ${mb(large.snapshotBytes)}, ${fmt(rss / large.snapshotBytes, 2)}×)` : ''}` : 'full mode',
    verdict: verdict(large && rss ? rss <= 1500 * MB : null),
  });
  targets.push({
    target: `start-up with ${at} (to the first query answered): ≤ 2 s`,
    value: large ? `${fmt(large.startup.queryMs / 1000, 2)} s` : 'full mode',
    verdict: verdict(large ? large.startup.queryMs <= 2000 : null),
  });
  targets.push({
    target: `longest stall during a snapshot at ${at}: ≤ 2 s`,
    value: large ? `${fmt(large.stall.longestStallMs / 1000, 2)} s (${large.stall.snapshots.length} snapshots)` : 'full mode',
    verdict: verdict(large ? large.stall.longestStallMs <= 2000 && large.stall.snapshots.length > 0 : null),
  });
  // Writers held by a scheduled backup: its run's longest stall beyond the same load's with none.
  if (largest) {
    const { none, scheduled } = largest.backups;
    // Held: the service's event loop during the backup (every writer waits on it), beside the same
    // measure at the same times of the same load with no backup. The client-side stall also counts
    // the machine's cores being shared with the backup's check, reported beside it.
    targets.push({
      target: `a scheduled backup at ${fmt(largest.statements)} statements holds the service (writers) ≤ 100 ms`,
      value:
        `${scheduled.heldMs ?? '—'} ms held vs ${none.heldMs ?? '—'} ms with no backup (${ratio(scheduled.heldMs, none.heldMs)}); ` +
        `longest client stall ${ms(scheduled.longestStallMs)} vs ${ms(none.longestStallMs)} ms`,
      verdict: verdict(scheduled.backups > 0 && scheduled.heldMs !== null ? scheduled.heldMs <= 100 : null),
    });
  }
  return targets;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

export function markdownTable(rows: string[][]): string {
  const escape = (cell: string) => cell.replaceAll('|', '\\|');
  const [head, ...body] = rows;
  return [head!, head!.map((_, c) => (c === 0 ? '---' : '---:')), ...body].map((r) => `| ${r.map(escape).join(' | ')} |`).join('\n');
}

function scenarioRows(report: Report, phase: PhaseReport): string[][] {
  const rows = [['scenario', 'req/s', 'stmts/s', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'CPU µs/req', 'baseline req/s', 'vs baseline', 'base CPU µs/req', 'non-2xx', 'snapshot ms']];
  for (const s of phase.scenarios) {
    const base = report.baselines[s.baselineKey];
    rows.push([
      s.label,
      fmt(s.service.requestsPerSec),
      fmt(s.service.statementsPerSec),
      ms(s.service.p50),
      ms(s.service.p95),
      ms(s.service.p99),
      ms(s.service.max),
      fmt(s.service.serverCpuMicrosPerRequest),
      fmt(base?.requestsPerSec),
      s.ratio == null ? '—' : `${fmt(s.ratio * 100, 1)}%`,
      fmt(base?.serverCpuMicrosPerRequest),
      String(s.service.non2xx + s.service.errors),
      s.snapshotMs ? fmt(s.snapshotMs) : '—',
    ]);
  }
  return rows;
}

function phaseTitle(phase: PhaseReport): string {
  return `${phase.name === 'small' ? 'Small' : 'Large'} Store: ${fmt(phase.statements)} statements preloaded (${fmt(phase.preload.statementsPerSec)} statements/s in batches of 1000)`;
}

/** What a phase measured beside its scenarios: memory, bytes, start-up, the snapshot stall. */
function phaseLines(phase: PhaseReport): string[] {
  const lines: string[] = [];
  if (phase.preload.stoppedEarly) lines.push(`preload stopped early: ${phase.preload.stoppedEarly}`);
  if (phase.stopSecondsAfterPreload !== undefined) lines.push(`graceful stop after the preload (final snapshot): ${fmt(phase.stopSecondsAfterPreload, 1)} s`);
  const files = (dir: { files: Record<string, number> }) => Object.entries(dir.files).map(([name, size]) => `${name} ${mb(size)}`).join(', ');
  lines.push(`memory: RSS ${mb(phase.memory?.rss)} after the scenarios${phase.memoryAtStart ? `, ${mb(phase.memoryAtStart.rss)} at start` : ''}, peak ${mb(phase.memory?.peak)}`);
  const bytes = bytesPerStatement(phase);
  if (phase.dataDirAfterPreload) lines.push(`data directory after the preload's clean stop: ${mb(phase.dataDirAfterPreload.total)} (${files(phase.dataDirAfterPreload)}), ${fmt(bytes)} bytes per statement`);
  lines.push(`data directory after the scenarios: ${mb(phase.dataDir.total)} (${files(phase.dataDir)})${phase.snapshotBytes ? `; snapshot after preload ${mb(phase.snapshotBytes)}` : ''}`);
  lines.push(`start-up: /health after ${fmt(phase.startup.healthMs)} ms, first query after ${fmt(phase.startup.queryMs)} ms`);
  const st = phase.stall;
  lines.push(
    `snapshot under load (threshold ${mb(st.thresholdBytes)}, single POSTs, 10 conn, ${fmt(st.load.seconds)} s): ${st.snapshots.length} snapshots, ` +
      `${fmt(st.load.statementsPerSec)} statements/s, p99 ${ms(st.load.p99)} ms, max latency ${ms(st.load.max)} ms, longest gap without a response ${ms(st.load.longestGapMs)} ms`,
  );
  lines.push(...backupPauseLines(phase.backups));
  return lines;
}

function writeCostsLine(costs: WriteCostsReport | null | undefined): string {
  return costs
    ? `write path without HTTP (write-costs, batches of 100): CPU ${fmt(costs.cpuMicrosPerStatement, 1)} µs, wall ${fmt(costs.wallMicrosPerStatement, 1)} µs per statement` +
        engineFloorText(costs.engineFloorMicros)
    : 'write path without HTTP (write-costs): not measured';
}

function engineFloorText(floor: WriteCostsReport['engineFloorMicros']): string {
  if (!floor) return '';
  const native = floor.native === null ? 'not measured (no node:sqlite)' : `${fmt(floor.native, 1)} µs (${fmt(floor.native / floor.sqljs, 2)}×)`;
  return `; the engine alone (row and postings) ${fmt(floor.sqljs, 1)} µs on sql.js, natively ${native}`;
}

function heading(report: Report): string {
  return `Lore benchmark (${report.mode}, ${report.secondsPerRun} s per run, seed ${report.seed}, ${String(report.machine.cpus)} CPUs, Node ${String(report.machine.node)})`;
}

export function printReport(report: Report): void {
  const out: string[] = [`\n${heading(report)}`];
  for (const phase of report.phases) out.push(`\n${phaseTitle(phase)}`, table(scenarioRows(report, phase)), ...phaseLines(phase));
  out.push(`\n${writeCostsLine(report.writeCosts)}`);
  out.push('\nTargets');
  out.push(table([['target', 'measured', ''], ...report.targets.map((t) => [t.target, t.value, t.verdict])]));
  console.log(out.join('\n'));
}

/** The same report as Markdown, for docs/performance.md. */
export function markdownReport(report: Report): string {
  const machine = report.machine;
  const out: string[] = [
    `## ${heading(report)}`,
    '',
    `Run ${report.startedAt} on ${String(machine.cpus)} × ${String(machine.cpuModel)}, ${mb(Number(machine.memoryBytes))} memory, load average at the end ${JSON.stringify(machine.loadAverageAtEnd)}; ${fmt(report.durationSeconds)} s in all.`,
    'The baseline is raw Fastify parsing the same bodies and answering at once (scripts/bench/baseline-server.ts), run with the same load in the same run.',
    '',
    '### Targets',
    '',
    markdownTable([['target', 'measured', 'verdict'], ...report.targets.map((t) => [t.target, t.value, t.verdict])]),
  ];
  for (const phase of report.phases) out.push('', `### ${phaseTitle(phase)}`, '', markdownTable(scenarioRows(report, phase)), '', ...phaseLines(phase).map((line) => `- ${line}`));
  out.push('', `- ${writeCostsLine(report.writeCosts)}`, '');
  return out.join('\n');
}

/** The backup measures (backup-pause.ts), as printed. */
export function backupPauseLines(b: BackupPauseReport): string[] {
  const spans = b.backupSpansMs.map(({ from, to }) => `${fmt(from / 1000, 1)}–${fmt(to / 1000, 1)} s`).join(', ');
  return [
    `backup pause (single POSTs, 10 conn): longest stall ${ms(b.none.longestStallMs)} ms with no backup, ` +
      `${ms(b.download.longestStallMs)} ms (${fmt(b.download.longestStallMs / b.none.longestStallMs, 1)}×) with a download backup, ` +
      `${ms(b.scheduled.longestStallMs)} ms (${fmt(b.scheduled.longestStallMs / b.none.longestStallMs, 1)}×) with ${b.scheduled.backups} scheduled backup(s)`,
    `event loop held at most (10 ms ticks; at the scheduled backups' times, ${spans || 'none'}): ` +
      `${b.none.heldMs ?? '—'} ms with no backup (the baseline, the loop probe; ${b.none.probeWholeRunMs ?? '—'} ms over its whole run), ` +
      `${b.scheduled.heldMs ?? '—'} ms (${ratio(b.scheduled.heldMs, b.none.heldMs)}) during scheduled backups (the service's own measure; the probe: ${b.scheduled.probeHeldMs ?? '—'} ms), ` +
      `${b.download.heldMs ?? '—'} ms (${ratio(b.download.heldMs, b.none.heldMs)}) during a download backup`,
  ];
}
