/**
 * `npm run repair -- --data-dir <dir>`
 *
 * Repairs a data directory whose journal is damaged in the middle, which the service refuses to
 * open: skips only the damaged record(s), keeps every whole record after them, keeps a copy of
 * every file it changes (`<name>.damaged-<time>`), and prints what was lost. Refuses while a
 * service runs on the directory. Exit code 0 when the directory opens afterwards, 1 otherwise.
 */
import { readDataDirCommand } from './data-dir-command';
import { describeRepair, repairDataDir } from '../src-server/storage/sqljs/journal-repair';
import { DataDirLockedError } from '../src-server/storage/sqljs/lock';

const USAGE = 'usage: npm run repair -- --data-dir <dir>';


async function main(): Promise<number> {
  const line = readDataDirCommand(USAGE, {});
  if (!line.ok) return 2;
  const { dataDir } = line;
  try {
    console.log(describeRepair(await repairDataDir({ dataDir }), dataDir));
    return 0;
  } catch (err) {
    if (err instanceof DataDirLockedError) console.error(`${err.message}. Stop the service before repairing.`);
    else console.error(`the repair failed, and changed nothing it could not undo: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
