/**
 * A restore that keeps the audit log (`npm run restore`, embedded storage): putting back an older
 * backup must not erase the record of what was done since, the restore included. So the backup is
 * put back (storage/sqljs/backup.ts, which sets the previous data's files aside), the previous
 * data's entries are read from a copy of those files, and the restored data's audit log is then
 * replaced by them, oldest first, before the restore's own entry is added. Each write is a journal
 * operation like any other.
 *
 * When the previous data cannot be opened (a damaged snapshot is a reason to restore), the
 * restored data keeps the backup's entries (with --replay-journal, and those the journal brings
 * back), and the restore's entry says why (`carried: null`, `reason`).
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { AuditRow } from '../storage/audit';
import { restoreDataDir, type RestoreResult } from '../storage/sqljs/backup';
import { openSqljsStorage } from '../storage/sqljs/sqljs-storage';
import type { Storage } from '../storage/storage';
import { AuditLog, type AuditActor } from './audit-log';

const PAGE = 500;

/** Every entry of the storage's audit log, oldest first. */
async function readAuditLog(storage: Storage): Promise<AuditRow[]> {
  const newestFirst: AuditRow[] = [];
  let beforeId: number | undefined;
  for (;;) {
    const page = await storage.listAuditEntries({ limit: PAGE, beforeId });
    for (const { id: _id, ...row } of page.entries) newestFirst.push(row);
    if (page.nextBeforeId === null) return newestFirst.reverse();
    beforeId = page.nextBeforeId;
  }
}

/**
 * The entries of the data the restore set aside (`keptAs`: its files, renamed `<name>.before-restore…`),
 * read from a copy of those files under their own names: the restored data and the kept files are
 * left as the restore made them. None kept (a new directory): no entries.
 */
async function previousEntries(dataDir: string, keptAs: string[]): Promise<{ entries: AuditRow[] } | { reason: string }> {
  if (keptAs.length === 0) return { entries: [] };
  const copy = await mkdtemp(join(tmpdir(), 'lore-restore-audit-'));
  try {
    for (const kept of keptAs) await copyFile(join(dataDir, kept), join(copy, kept.replace(/\.before-restore(\.\d+)?$/, '')));
    const storage = await openSqljsStorage({ dataDir: copy });
    try {
      return { entries: await readAuditLog(storage) };
    } finally {
      await storage.close();
    }
  } catch (err) {
    return { reason: err instanceof Error ? err.message : String(err) };
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

export interface RestoreKeepingAudit extends RestoreResult {
  /** How many entries of the data before the restore the restored data holds; null when they could not be read. */
  carried: number | null;
}

/** restoreDataDir, the audit log carried over and the restore recorded (`actor`: who ran it). */
export async function restoreKeepingAudit(options: Parameters<typeof restoreDataDir>[0] & { actor: AuditActor }): Promise<RestoreKeepingAudit> {
  const result = await restoreDataDir(options);
  const before = await previousEntries(path.resolve(options.dataDir), result.keptAs);
  const storage = await openSqljsStorage({ dataDir: options.dataDir, ...(options.wasmPath ? { wasmPath: options.wasmPath } : {}) });
  try {
    if ('entries' in before) {
      await storage.pruneAuditEntries(Number.MAX_SAFE_INTEGER);
      for (const entry of before.entries) await storage.insertAuditEntry(entry);
    }
    await new AuditLog(storage).record({
      action: 'backup.restore',
      outcome: 'succeeded',
      target: path.basename(options.from),
      detail: {
        statements: result.statements,
        replayJournal: options.replayJournal === true,
        ...('entries' in before ? { carried: before.entries.length } : { carried: null, reason: before.reason }),
      },
      actor: options.actor,
    });
  } finally {
    await storage.close();
  }
  return { ...result, carried: 'entries' in before ? before.entries.length : null };
}
