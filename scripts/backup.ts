/**
 * `npm run backup -- --url http://127.0.0.1:8411 --out lore-backup.sqlite`
 *
 * Downloads a consistent backup of a running Lore service through its admin API (POST
 * /admin/api/backups, the admin token from LRS_ADMIN_TOKEN), checks that it is a whole Lore
 * database, and only then gives it its name. Restore it with `npm run restore`.
 */
import { createWriteStream } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { BACKUPS_PATH } from '../src-server/admin/contract';
import { backupFileName } from '../src-server/admin/backups';
import { adminRequest, adminTokenOr, serviceBase } from './admin-api-command';
import { InvalidBackupError, sqlJsForBackups, verifyBackup } from '../src-server/storage/sqljs/backup';

const USAGE = 'usage: LRS_ADMIN_TOKEN=<token> npm run backup -- [--url http://127.0.0.1:8411] [--out lore-backup.sqlite]';

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({ options: { url: { type: 'string' }, out: { type: 'string' } }, strict: true }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const token = adminTokenOr(USAGE, 'the backup');
  if (token === null) return 2;
  const base = serviceBase(values.url);
  const out = values.out ?? backupFileName(new Date());
  const partial = `${out}.part`;

  const answer = await adminRequest(base, BACKUPS_PATH, { method: 'POST', token }, 'the backup');
  if (!answer.ok) {
    console.error(answer.message);
    return 1;
  }
  const response = answer.response;
  try {
    await pipeline(Readable.fromWeb(response.body as ReadableStream<Uint8Array>), createWriteStream(partial));
    const handle = await open(partial, 'r');
    await handle.sync().finally(() => handle.close());
    const summary = verifyBackup(await sqlJsForBackups(), await readFile(partial), 'the downloaded backup');
    await rename(partial, out);
    console.log(
      `backup written to ${out}: ${summary.bytes} bytes, ${summary.stores} Stores, ${summary.statements} statements, ` +
        `${summary.rejections} rejections (schema ${summary.schemaVersion}, journal record ${summary.journalSeq})`,
    );
    return 0;
  } catch (err) {
    await rm(partial, { force: true });
    console.error(err instanceof InvalidBackupError ? err.message : `the backup failed: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
