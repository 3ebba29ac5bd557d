/**
 * Backups of a running service: the whole database as an SQLite file, taken from a consistent
 * point (every write acknowledged before the request is in it). One at a time: each holds an image
 * of the database in memory, so concurrent requests wait for the one before them.
 */
import type { Storage } from '../storage/storage';

export interface Backup {
  /** e.g. lore-backup-2026-11-21T12-00-00Z.sqlite */
  fileName: string;
  bytes: Uint8Array;
}

/** The backups of one service, one at a time (one queue per service, never shared between two). */
export class BackupQueue {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Null when the storage keeps no image of its own to copy (a server database has its own tools). */
  create(): Promise<Backup> | null {
    const backup = this.storage.backup?.bind(this.storage);
    if (!backup) return null;
    const next = this.queue.then(async () => {
      const bytes = await backup();
      return { fileName: backupFileName(this.now()), bytes };
    });
    this.queue = next.catch(() => {});
    return next;
  }
}

export function backupFileName(at: Date): string {
  return `lore-backup-${at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}.sqlite`;
}
