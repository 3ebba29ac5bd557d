/**
 * `npm run repair -- --data-dir <dir>`
 *
 * Repairs a data directory whose journal is damaged in the middle, which the service refuses to
 * open: skips only the damaged record(s), keeps every whole record after them, keeps a copy of
 * every file it changes (`<name>.damaged-<time>`), and prints what was lost. Refuses while a
 * service runs on the directory. Exit code 0 when the directory opens afterwards, 1 otherwise.
 */
import { readDataDirCommand } from './data-dir-command';
import { repairDataDir, type RepairReport } from '../src-server/storage/sqljs/journal-repair';
import { DataDirLockedError } from '../src-server/storage/sqljs/lock';

const USAGE = 'usage: npm run repair -- --data-dir <dir>';

function describe(report: RepairReport, dataDir: string): string {
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

async function main(): Promise<number> {
  const line = readDataDirCommand(USAGE, {});
  if (!line.ok) return 2;
  const { dataDir } = line;
  try {
    console.log(describe(await repairDataDir({ dataDir }), dataDir));
    return 0;
  } catch (err) {
    if (err instanceof DataDirLockedError) console.error(`${err.message}. Stop the service before repairing.`);
    else console.error(`the repair failed, and changed nothing it could not undo: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
