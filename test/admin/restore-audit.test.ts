/**
 * A restore of an older backup keeps the audit log: the entries written since the backup are
 * carried over into the restored data and the restore itself is recorded, through journal
 * operations (found again by a storage reopened on the data), with --replay-journal too.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src-server/admin/audit-log';
import { restoreKeepingAudit } from '../../src-server/admin/restore-audit';
import { DataDirLockedError } from '../../src-server/storage/sqljs/lock';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { openIn, removeTempDirs, tempDir } from '../storage/sqljs-helpers';

const opened: SqljsStorage[] = [];
afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close().catch(() => {});
  await removeTempDirs();
});

const actor = { actor: 'admin token', detail: '127.0.0.1' } as const;
const ranBy = { actor: 'command line', detail: 'ada' } as const;

/** A data directory with one entry before its backup and one after; the backup's file. */
async function dataWithBackup(): Promise<{ dataDir: string; file: string }> {
  const dataDir = await tempDir();
  const storage = await openIn(dataDir);
  const log = new AuditLog(storage);
  await log.record({ action: 'store.create', outcome: 'succeeded', store: 'before', actor });
  const file = path.join(await tempDir(), 'backup.sqlite');
  await writeFile(file, await storage.backup());
  await log.record({ action: 'store.delete', outcome: 'succeeded', store: 'after', actor });
  await storage.close();
  return { dataDir, file };
}

async function actionsIn(dataDir: string): Promise<Array<[string, string | null]>> {
  const storage = await openIn(dataDir);
  opened.push(storage);
  const page = await storage.listAuditEntries({ limit: 50 });
  return page.entries.map((e) => [e.action, e.store ?? e.target]);
}

describe('a restore of the embedded storage', () => {
  it('carries the entries written since the backup over, then records the restore', async () => {
    const { dataDir, file } = await dataWithBackup();
    const result = await restoreKeepingAudit({ dataDir, from: file, actor: ranBy });
    expect(result.carried).toBe(2);
    expect(await actionsIn(dataDir)).toEqual([
      ['backup.restore', 'backup.sqlite'],
      ['store.delete', 'after'],
      ['store.create', 'before'],
    ]);
    const [restore] = (await opened[0]!.listAuditEntries({ limit: 1 })).entries;
    expect(restore).toMatchObject({ actor: 'command line', actorDetail: 'ada', outcome: 'succeeded', detail: { carried: 2, replayJournal: false } });
  });

  it('with --replay-journal, gets them back from the journal', async () => {
    const { dataDir, file } = await dataWithBackup();
    const result = await restoreKeepingAudit({ dataDir, from: file, replayJournal: true, actor: ranBy });
    expect(result.carried).toBe(2);
    expect(await actionsIn(dataDir)).toEqual([
      ['backup.restore', 'backup.sqlite'],
      ['store.delete', 'after'],
      ['store.create', 'before'],
    ]);
  });

  it('is refused while a service has the data open, and records nothing', async () => {
    const { dataDir, file } = await dataWithBackup();
    const running = await openIn(dataDir);
    opened.push(running);
    await expect(restoreKeepingAudit({ dataDir, from: file, actor: ranBy })).rejects.toThrow(DataDirLockedError);
    expect((await running.listAuditEntries({ limit: 50 })).entries.map((e) => e.action)).toEqual(['store.delete', 'store.create']);
  });
});
