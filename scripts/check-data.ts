/**
 * `npm run check-data -- --data-dir <dir>`
 *
 * Verifies a data directory without changing it: the snapshot against its page checksums and
 * with PRAGMA quick_check, every journal record and the order of their seqs. Prints what it
 * found. Exit code 0 when all is whole, 1 when something is damaged, 2 when it cannot check
 * (bad usage, a service running on the directory).
 */
import { readDataDirCommand } from './data-dir-command';
import { checkDataDir } from '../src-server/storage/sqljs/check-data';
import { DataDirLockedError } from '../src-server/storage/sqljs/lock';

const USAGE = 'usage: npm run check-data -- --data-dir <dir>';

async function main(): Promise<number> {
  const line = readDataDirCommand(USAGE, {});
  if (!line.ok) return 2;
  const { dataDir } = line;
  let check;
  try {
    check = await checkDataDir({ dataDir });
  } catch (err) {
    if (err instanceof DataDirLockedError) console.error(`${err.message}. Stop the service to check its data.`);
    else console.error(`the check could not run: ${(err as Error).message}`);
    return 2;
  }
  const lines = [`${dataDir}: ${check.statements === null ? 'the snapshot could not be counted' : `${check.statements} statements in the snapshot`}, ${check.journalRecords} journal records`];
  for (const note of check.notes) lines.push(`  note: ${note}`);
  for (const problem of check.problems) lines.push(`  DAMAGED: ${problem}`);
  lines.push(check.problems.length === 0 ? 'whole: nothing is damaged.' : `${check.problems.length} problem${check.problems.length === 1 ? '' : 's'} found; see README, "Recovery".`);
  console.log(lines.join('\n'));
  return check.problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
