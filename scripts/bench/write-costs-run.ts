/**
 * Runs write-costs.ts (the write path's CPU per statement without HTTP) as a child process, so its
 * fresh embedded storage and its garbage stay out of the benchmark's own process, and reads the
 * whole path's figures from its output; storage-micro.ts (single statements, 10 in flight) the same way.
 *
 * The target halves the figure of the release before the performance work, "same machine, same
 * day": a figure recorded on another day is no measure of it (this machine's speed moved by half
 * from one hour to the next). So the benchmark extracts that release from git (`git archive`),
 * runs its own write-costs.ts beside this one in alternating rounds, and reads the target against
 * the median of the per-round ratios. Only where the history is missing (a source archive) does
 * it fall back to the figure recorded the day the target was set.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { median } from './median';
import { ROOT } from './processes';
import type { WriteCostsReport } from './report';

/** The release before the performance work of docs/performance.md: the target halves its figure. */
export const WRITE_COSTS_BEFORE_COMMIT = 'da4ae23';

/** Its figure, recorded on this 2-core machine the day the target was set: used only without git history. */
export const WRITE_COSTS_BEFORE_RECORDED = { micros: 494.5, measured: `write-costs at ${WRITE_COSTS_BEFORE_COMMIT}, recorded 2026-11-26 on another day's machine` };

/** What `write-costs.ts --json` prints (the parts the report uses). */
interface WriteCostsJson {
  wholePath: { wallMicros: number; cpuMicros: number };
  engineFloor: { sqljs: { withPostingsUs: number }; native: { withPostingsUs: number } | null };
}

/** A bench script of the checkout at `root`, run by Node with tsx there: what it printed. */
async function runScript(root: string, script: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(root, script), ...args], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** The JSON object a script's --json prints on its last line. */
function lastLineJson<T>(stdout: string): T {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as T;
}

async function runCurrent(statements: number): Promise<WriteCostsJson> {
  return lastLineJson(await runScript(ROOT, 'scripts/bench/write-costs.ts', ['--statements', String(statements), '--json']));
}

/**
 * The earlier release's write-costs.ts, which prints text only: the whole path's CPU is the
 * "CPU … µs" line under "the whole write path".
 */
async function runBefore(tree: string, statements: number): Promise<number> {
  const stdout = await runScript(tree, 'scripts/bench/write-costs.ts', ['--statements', String(statements)]);
  const lines = stdout.split('\n');
  const from = lines.findIndex((line) => line.includes('whole write path'));
  const cpu = lines.slice(from + 1).map((line) => /^\s*CPU\s+([\d.]+) µs/.exec(line)).find((match) => match !== null);
  if (from < 0 || !cpu) throw new Error(`write-costs at ${WRITE_COSTS_BEFORE_COMMIT} printed no whole-path CPU:\n${stdout.slice(0, 2000)}`);
  return Number(cpu[1]);
}

/** The earlier release's source in a temporary directory, sharing this checkout's node_modules; null without git history. */
async function extractBefore(): Promise<{ tree: string; remove: () => void } | null> {
  const tree = mkdtempSync(join(tmpdir(), `lore-write-costs-${WRITE_COSTS_BEFORE_COMMIT}-`));
  const remove = () => rmSync(tree, { recursive: true, force: true });
  const extracted = await new Promise<boolean>((resolve) => {
    const git = spawn('git', ['-C', ROOT, 'archive', '--format=tar', WRITE_COSTS_BEFORE_COMMIT], { stdio: ['ignore', 'pipe', 'ignore'] });
    const tar = spawn('tar', ['-x', '-C', tree], { stdio: ['pipe', 'ignore', 'ignore'] });
    git.stdout.pipe(tar.stdin);
    let failed = false;
    git.on('error', () => (failed = true));
    git.on('exit', (code) => (failed ||= code !== 0));
    tar.on('error', () => resolve(false));
    tar.on('exit', (code) => resolve(!failed && code === 0));
  });
  if (!extracted || !existsSync(join(tree, 'scripts/bench/write-costs.ts'))) {
    remove();
    return null;
  }
  symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
  return { tree, remove };
}

/**
 * Single statements without HTTP, 10 in flight (storage-micro.ts): what the write alone costs of a
 * single POST's CPU, beside the single-POST target's budget.
 */
export async function measureSingleWrites(statements: number): Promise<number> {
  const stdout = await runScript(ROOT, 'scripts/bench/storage-micro.ts', ['--statements', String(statements), '--concurrency', '10', '--json']);
  return lastLineJson<{ cpuMicros: number }>(stdout).cpuMicros;
}

/**
 * This build's write path, and the earlier release's in `rounds` alternating rounds (so both see
 * the same load on a shared machine), or the recorded figure when `given` or without git history.
 */
export async function measureWriteCosts(statements: number, rounds: number, given?: { micros: number; measured: string }): Promise<WriteCostsReport | null> {
  const before = given ? null : await extractBefore();
  try {
    const current: WriteCostsJson[] = [];
    const earlier: number[] = [];
    for (let round = 0; round < (before ? rounds : 1); round++) {
      if (before) earlier.push(await runBefore(before.tree, statements));
      current.push(await runCurrent(statements));
    }
    const cpu = median(current.map((c) => c.wholePath.cpuMicros));
    const last = current.at(-1)!;
    const recorded = given ?? WRITE_COSTS_BEFORE_RECORDED;
    return {
      cpuMicrosPerStatement: cpu,
      wallMicrosPerStatement: median(current.map((c) => c.wholePath.wallMicros)),
      beforeMicrosPerStatement: before ? median(earlier) : recorded.micros,
      beforeMeasured: before ? `write-costs at ${WRITE_COSTS_BEFORE_COMMIT} in this run, ${rounds} alternating rounds` : recorded.measured,
      ratio: before ? median(current.map((c, i) => c.wholePath.cpuMicros / earlier[i]!)) : cpu / recorded.micros,
      engineFloorMicros: { sqljs: last.engineFloor.sqljs.withPostingsUs, native: last.engineFloor.native?.withPostingsUs ?? null },
    };
  } finally {
    before?.remove();
  }
}
