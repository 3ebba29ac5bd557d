/**
 * Runs write-costs.ts (the write path's CPU per statement without HTTP) as a child process, so its
 * fresh embedded storage and its garbage stay out of the benchmark's own process, and reads the
 * whole path's figures from its JSON.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes';
import type { WriteCostsReport } from './report';

/**
 * The figure the write-path target halves: write-costs on this 2-core machine at the release before
 * the performance work of docs/performance.md ("Write path without HTTP"), measured the day the
 * target was set. `--write-costs-before` replaces it when measuring on another machine.
 */
export const WRITE_COSTS_BEFORE = { micros: 494.5, measured: 'write-costs at da4ae23, 2026-11-26, this 2-core machine' };

/** What `write-costs.ts --json` prints (the parts the report uses). */
interface WriteCostsJson {
  wholePath: { wallMicros: number; cpuMicros: number };
  engineFloor: { sqljs: { withPostingsUs: number }; native: { withPostingsUs: number } | null };
}

export async function measureWriteCosts(statements: number, before = WRITE_COSTS_BEFORE): Promise<WriteCostsReport | null> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/bench/write-costs.ts'), '--statements', String(statements), '--json'],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  const { wholePath, engineFloor } = JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null') as WriteCostsJson;
  return {
    cpuMicrosPerStatement: wholePath.cpuMicros,
    wallMicrosPerStatement: wholePath.wallMicros,
    beforeMicrosPerStatement: before.micros,
    beforeMeasured: before.measured,
    engineFloorMicros: { sqljs: engineFloor.sqljs.withPostingsUs, native: engineFloor.native?.withPostingsUs ?? null },
  };
}
