/**
 * `npm run restore -- --data-dir <dir> --from lore-backup.sqlite`
 *
 * Puts a backup back as a data directory's database. Refuses while a service runs on the
 * directory and refuses a file that is not a whole Lore database; the previous snapshot and
 * journal files are kept beside it as `<name>.before-restore`. Start the service on the directory
 * afterwards.
 */
import { parseArgs } from 'node:util';
import { DataDirLockedError } from '../src-server/storage/sqljs/lock';
import { InvalidBackupError, restoreDataDir } from '../src-server/storage/sqljs/backup';

const USAGE = 'usage: npm run restore -- --data-dir <dir> --from <backup.sqlite>';

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({ options: { 'data-dir': { type: 'string' }, from: { type: 'string' } }, strict: true }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const dataDir = values['data-dir'] ?? process.env.LRS_DATA_DIR;
  if (!dataDir || !values.from) {
    console.error(`${dataDir ? '--from' : '--data-dir'} is required.\n${USAGE}`);
    return 2;
  }
  try {
    const result = await restoreDataDir({ dataDir, from: values.from });
    console.log(
      `restored ${values.from} into ${dataDir}: ${result.stores} Stores, ${result.statements} statements, ${result.rejections} rejections.` +
        (result.keptAs.length > 0 ? `\nthe previous data is kept as ${result.keptAs.join(', ')}` : ''),
    );
    return 0;
  } catch (err) {
    if (err instanceof DataDirLockedError) console.error(`${err.message}. Stop the service before restoring.`);
    else if (err instanceof InvalidBackupError) console.error(`not restored: ${err.message}`);
    else console.error(`the restore failed: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
