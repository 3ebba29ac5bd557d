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

let queue: Promise<unknown> = Promise.resolve();

/** Null when the storage keeps no image of its own to copy (a server database has its own tools). */
export function createBackup(storage: Storage, now: () => Date = () => new Date()): Promise<Backup> | null {
  const backup = storage.backup?.bind(storage);
  if (!backup) return null;
  const next = queue.then(async () => {
    const bytes = await backup();
    return { fileName: backupFileName(now()), bytes };
  });
  queue = next.catch(() => {});
  return next;
}

export function backupFileName(at: Date): string {
  return `lore-backup-${at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}.sqlite`;
}
