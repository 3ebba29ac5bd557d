/**
 * Runs write-costs.ts (the write path's CPU per statement without HTTP) as a child process, so its
 * fresh embedded storage and its garbage stay out of the benchmark's own process, and reads the
 * whole path's figures from what it prints.
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

const figure = (output: string, label: string): number | null => {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+) µs`, 'm').exec(output.slice(output.indexOf('the whole write path')));
  return match ? Number(match[1]) : null;
};

export async function measureWriteCosts(statements: number, before = WRITE_COSTS_BEFORE): Promise<WriteCostsReport | null> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/bench/write-costs.ts'), '--statements', String(statements)], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const cpu = figure(stdout, 'CPU');
  const wall = figure(stdout, 'wall time');
  if (cpu === null || wall === null) return null;
  return { cpuMicrosPerStatement: cpu, wallMicrosPerStatement: wall, beforeMicrosPerStatement: before.micros, beforeMeasured: before.measured };
}
