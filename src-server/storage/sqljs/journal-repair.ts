/**
 * The repair of a data directory whose journal is damaged in the middle (load-database.ts refuses
 * to open it): every whole record is kept, the damaged bytes are skipped by finding the next whole
 * record, and a `lostRecords` record (ops.ts) stands where records were lost, so the journal
 * replays from start to end again. Every file it changes is first copied to
 * `<name>.damaged-<time>`; what was lost is reported, with the statement ids the damaged bytes
 * still name. Runs with the data directory locked: never under a running service.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { nodeStorageFs, replaceFileDurably } from './fs';
import type { StorageFs } from './fs';
import { loadDatabase } from './load-database';
import type { JournalRepairLog } from './load-database';
import { loadSqlJs } from './load-database';
import { lockDataDir } from './lock';

export interface RepairReport {
  /** Journal files rewritten, each with the copy of it as it was. */
  repaired: Array<{ file: string; copy: string }>;
  /** Runs of lost records: where, how many, the statement ids they named. */
  lost: JournalRepairLog['lost'];
  /** Records lost in all (a torn tail's unacknowledged write is not counted). */
  lostRecords: number;
  tornTail: JournalRepairLog['tornTail'];
  /** Statements readable after the repair. */
  statements: number;
}

export interface RepairOptions {
  dataDir: string;
  log?: (message: string) => void;
  fs?: StorageFs;
  wasmPath?: string;
  /** The time in the copies' names; now by default. */
  now?: Date;
}

/** `2026-11-25T04-12-00Z`: a time that sorts, and is a valid file name everywhere. */
function fileTime(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-');
}

export async function repairDataDir(options: RepairOptions): Promise<RepairReport> {
  const log = options.log ?? (() => {});
  const fs = options.fs ?? nodeStorageFs;
  const dataDir = path.resolve(options.dataDir);
  const lock = await lockDataDir(dataDir, log);
  try {
    const SQL = await loadSqlJs(options.wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
    const repair: JournalRepairLog = { rewrites: new Map(), lost: [], tornTail: null };
    // A trial replay in memory: nothing is written until every record has been read and applied.
    const trial = await loadDatabase({ SQL, fs, dataDir, log, durableSizes: new Map(), repair });
    trial.changes.dispose();
    trial.state.sql.close();

    const suffix = `.damaged-${fileTime(options.now ?? new Date())}`;
    const repaired: RepairReport['repaired'] = [];
    for (const [file, content] of repair.rewrites) {
      const copy = `${file}${suffix}`;
      const original = (await fs.readFile(file)) ?? new Uint8Array();
      await replaceFileDurably(fs, copy, `${copy}.tmp`, original);
      await replaceFileDurably(fs, file, `${file}.repair-tmp`, content);
      repaired.push({ file, copy });
    }

    // The proof: the directory now opens the ordinary way, with no damage left to refuse.
    const reopened = await loadDatabase({ SQL, fs, dataDir, log: () => {}, durableSizes: new Map() });
    let statements = 0;
    for (const counts of reopened.state.counts.values()) statements += counts.statements;
    reopened.changes.dispose();
    reopened.state.sql.close();
    return {
      repaired,
      lost: repair.lost,
      lostRecords: repair.lost.reduce((sum, run) => sum + run.records, 0),
      tornTail: repair.tornTail,
      statements,
    };
  } finally {
    await lock.release();
  }
}

/** What a repair did, in plain words (the command and the desktop app print it). */
export function describeRepair(report: RepairReport, dataDir: string): string {
  if (report.repaired.length === 0) return `${dataDir}: every journal record is whole; nothing was changed (${report.statements} statements).`;
  const lines = [`repaired ${dataDir}:`];
  for (const { file, copy } of report.repaired) lines.push(`  rewrote ${file} (the damaged file is kept as ${copy})`);
  if (report.tornTail) lines.push(`  cut a torn tail of ${report.tornTail.bytes} bytes at byte ${report.tornTail.offset} (a write a crash cut short, never acknowledged)`);
  lines.push(`  lost: ${report.lostRecords} journal record${report.lostRecords === 1 ? '' : 's'}`);
  for (const run of report.lost) {
    lines.push(`    ${run.records} record${run.records === 1 ? '' : 's'}: ${run.reason}`);
    if (run.statementIds.length > 0) lines.push(`      statement ids still named in it: ${run.statementIds.join(', ')}`);
  }
  lines.push(`  the data directory opens again: ${report.statements} statements readable.`);
  return lines.join('\n');
}
