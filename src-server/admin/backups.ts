/**
 * Backups downloaded from a running service (POST /admin/api/backups): the whole database as a
 * checked SQLite file from a consistent point (every write acknowledged before the request is in
 * it), written the way the scheduled backups are (Storage.writeBackup: the snapshot brought up to
 * date a slice at a time, copied and checked in a worker), so a download of any size holds no
 * writer. The file is written into a folder meant for backups and removed once it is sent. One at
 * a time: concurrent requests wait for the one before them.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { BackupFileSummary, Storage } from '../storage/storage';

export interface Backup {
  /** e.g. lore-backup-2026-11-21T12-00-00Z.sqlite */
  fileName: string;
  /** Where it was written; `remove` deletes it. */
  file: string;
  summary: BackupFileSummary;
  remove(): Promise<void>;
}

/** The backups of one service, one at a time (one queue per service, never shared between two). */
export class BackupQueue {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    /** Where a download is written before it is sent: the scheduled backups' folder (same disk, room for a copy). */
    private readonly dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Null when the storage keeps no database file of its own to copy (a server database has its own tools). */
  create(): Promise<Backup> | null {
    const writeBackup = this.storage.writeBackup?.bind(this.storage);
    if (!writeBackup) return null;
    const next = this.queue.then(async () => {
      await fsp.mkdir(this.dir, { recursive: true });
      // Left by a service stopped while it sent one; one still being sent reads on from its open file.
      for (const name of await fsp.readdir(this.dir)) if (name.startsWith('.download-')) await fsp.rm(path.join(this.dir, name), { force: true });
      // A name the scheduled backups never take for one of theirs, nor count among them.
      const file = path.join(this.dir, `.download-${randomBytes(6).toString('hex')}.sqlite`);
      const summary = await writeBackup(file, { handedOut: true });
      return { fileName: backupFileName(this.now()), file, summary, remove: () => fsp.rm(file, { force: true }) };
    });
    this.queue = next.catch(() => {});
    return next;
  }
}

export function backupFileName(at: Date): string {
  return `lore-backup-${at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}.sqlite`;
}
