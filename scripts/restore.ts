/**
 * `npm run restore -- --data-dir <dir> --from <backup.sqlite> [--replay-journal]`
 * `npm run restore -- --data-dir <dir> --list [--backup-dir <dir>]`
 *
 * Puts a backup back as a data directory's database. Refuses while a service runs on the
 * directory and refuses a file that is not a whole Lore database; the previous snapshot and
 * journal files are kept beside it as `<name>.before-restore`. With --replay-journal the journal
 * written since the backup is replayed over it at the next start (after a damaged snapshot: the
 * backup plus the journal lose nothing the journal still holds). --list shows the scheduled
 * backups, newest first. Start the service on the directory afterwards: it applies again every
 * erasure recorded in the data directory's erasures.jsonl that the backup predates
 * (docs/erasure-and-retention.md).
 */
import { promises as fsp } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { readDataDirCommand } from './data-dir-command';
import { backupTime } from '../src-server/admin/backup-schedule';
import { defaultBackupDir } from '../src-server/service/config';
import { DataDirLockedError } from '../src-server/storage/sqljs/lock';
import { ERASURE_LEDGER_FILE, readErasureLedgerFile } from '../src-server/storage/sqljs/erasure-ledger-file';
import { InvalidBackupError } from '../src-server/storage/sqljs/backup';
import { restoreKeepingAudit } from '../src-server/admin/restore-audit';

const USAGE = [
  'usage: npm run restore -- --data-dir <dir> --from <backup.sqlite> [--replay-journal]',
  '       npm run restore -- --data-dir <dir> --list [--backup-dir <dir>]',
].join('\n');

/** The backups in a folder, newest first, with their time and size. */
async function listBackups(dir: string): Promise<string> {
  const names = await fsp.readdir(dir).catch(() => null);
  if (names === null) return `no backup folder at ${dir} (set it with --backup-dir)`;
  const backups = names.flatMap((name) => {
    const at = backupTime(name);
    return at ? [{ name, at }] : [];
  });
  if (backups.length === 0) return `no backups in ${dir}`;
  backups.sort((a, b) => b.at.getTime() - a.at.getTime());
  const lines = [`backups in ${dir}, newest first:`];
  for (const { name, at } of backups) {
    const { size } = await fsp.stat(path.join(dir, name));
    lines.push(`  ${path.join(dir, name)}  ${at.toISOString()}  ${(size / 1024 / 1024).toFixed(1)} MB`);
  }
  return lines.join('\n');
}

/** Who ran the restore, for its audit entry. */
function osUser(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const line = readDataDirCommand(USAGE, {
    from: { type: 'string' },
    list: { type: 'boolean' },
    'backup-dir': { type: 'string' },
    'replay-journal': { type: 'boolean' },
  });
  if (!line.ok) return 2;
  const { dataDir, values } = line;
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  if (values['list'] === true) {
    console.log(await listBackups(path.resolve(text('backup-dir') ?? process.env.LRS_BACKUP_DIR ?? defaultBackupDir(path.resolve(dataDir)))));
    return 0;
  }
  const from = text('from');
  if (!from) {
    console.error(`--from (or --list) is required.\n${USAGE}`);
    return 2;
  }
  try {
    const result = await restoreKeepingAudit({ dataDir, from, replayJournal: values['replay-journal'] === true, actor: { actor: 'command line', detail: osUser() } });
    const lines = [`restored ${from} into ${dataDir}: ${result.stores} Stores, ${result.statements} statements, ${result.rejections} rejections.`];
    if (result.replays) {
      lines.push(
        result.replays.through >= result.replays.from
          ? `the next start replays journal records ${result.replays.from} to ${result.replays.through}, written since the backup.`
          : 'the journal holds nothing written since the backup.',
      );
    }
    if (result.keptAs.length > 0) lines.push(`the previous data is kept as ${result.keptAs.join(', ')}`);
    // The ledger file is not replaced: erasures recorded after the backup are applied again at the next start.
    const erasures = await readErasureLedgerFile(path.resolve(dataDir));
    if (erasures.length > 0) lines.push(`${erasures.length} erasures are recorded in ${ERASURE_LEDGER_FILE}: the next start applies again each one the backup does not hold.`);
    lines.push(
      result.carried === null
        ? 'the audit log of the previous data could not be read: the restored data keeps the backup\'s audit log, and the restore is recorded in it.'
        : `the audit log keeps its ${result.carried} entries from before the restore, and the restore is recorded in it.`,
    );
    console.log(lines.join('\n'));
    return 0;
  } catch (err) {
    if (err instanceof DataDirLockedError) console.error(`${err.message}. Stop the service before restoring.`);
    else if (err instanceof InvalidBackupError) console.error(`not restored: ${err.message}`);
    else console.error(`the restore failed: ${(err as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
