/**
 * Backups that happen by themselves: every `intervalMs`, a checked backup file in `dir`
 * (`lore-backup-<time>.sqlite`, written by the storage under a temporary name, checked, renamed),
 * keeping the newest `keep`. The schedule follows the newest backup in the folder, not the
 * service's uptime: a laptop that was off for a week backs up soon after it starts. A failed
 * backup is logged, shown in the status, and retried sooner than the interval (1 min, doubling
 * up to 1 h); it never leaves a file under a final name.
 */
import { promises as fsp } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import type { BackupFileSummary } from '../storage/storage';
import type { BackupScheduleView } from './contract';

export interface BackupScheduleOptions {
  dir: string;
  intervalMs: number;
  keep: number;
  /** Writes a checked backup file at the path given (Storage.writeBackup). */
  write: (file: string) => Promise<BackupFileSummary>;
  log: (message: string) => void;
  now?: () => Date;
  /** The first retry's delay after a failure; doubles up to an hour (never beyond the interval). */
  retryMs?: number;
  /** How long after start a backup that is due (or the very first) is taken: the start settles first. */
  startDelayMs?: number;
  /**
   * The data directory the backups are of. The folder remembers it (OWNER_FILE), so two data
   * directories never share a folder, where each would prune the other's backups.
   */
  owner: string;
}

/** In the backup folder: the data directory whose backups it holds. */
export const OWNER_FILE = 'lore-backups-of.txt';

const NAME = /^lore-backup-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:-\d{3})?Z)\.sqlite$/;
const MAX_RETRY_MS = 60 * 60_000;
/** setTimeout's longest delay; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `lore-backup-2026-11-25T04-12-00-123Z.sqlite`: sorts by time, valid everywhere, unique to the millisecond. */
export function scheduledBackupName(at: Date): string {
  return `lore-backup-${at.toISOString().replace(/:/g, '-').replace('.', '-')}.sqlite`;
}

/** The time in a backup's name (this format, or a download's without milliseconds), or null for another file. */
export function backupTime(name: string): Date | null {
  const match = NAME.exec(name);
  if (!match) return null;
  const [date, time] = match[1]!.split('T') as [string, string];
  const [hours, minutes, seconds, millis] = time.replace(/Z$/, '').split('-');
  const parsed = new Date(`${date}T${hours}:${minutes}:${seconds}.${millis ?? '000'}Z`);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

export class BackupSchedule {
  private readonly now: () => Date;
  private readonly retryMs: number;
  private readonly startDelayMs: number;
  private last: BackupScheduleView['last'] = null;
  private failure: BackupScheduleView['failure'] = null;
  private nextAt: Date | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: BackupScheduleOptions) {
    this.now = options.now ?? (() => new Date());
    this.retryMs = options.retryMs ?? 60_000;
    this.startDelayMs = options.startDelayMs ?? Math.min(10_000, options.intervalMs);
  }

  /**
   * Reads the folder, removes temporary files a crash left, and schedules the next backup. A
   * folder that cannot be read yet (missing, a disk not mounted) is no reason not to try later;
   * a folder that belongs to another data directory is: scheduled backups stay off.
   */
  async start(): Promise<void> {
    const owner = await this.folderOwner();
    if (owner !== null && owner !== this.options.owner) {
      const message = `the backup folder ${this.options.dir} holds the backups of another data directory (${owner}); choose another with --backup-dir`;
      this.failure = { at: this.now().toISOString(), message, attempts: 1 };
      this.options.log(`scheduled backups are off: ${message}`);
      return;
    }
    let newest: { name: string; at: Date } | undefined;
    try {
      for (const name of await fsp.readdir(this.options.dir)) {
        if (name.endsWith('.sqlite.part') && backupTime(name.slice(0, -'.part'.length))) await fsp.rm(path.join(this.options.dir, name), { force: true });
      }
      newest = (await this.backups()).at(-1);
      if (newest) {
        const stats = await fsp.stat(path.join(this.options.dir, newest.name));
        this.last = { at: newest.at.toISOString(), file: path.join(this.options.dir, newest.name), bytes: stats.size, statements: null };
      }
    } catch {
      // Not there yet, or not readable now: the first backup creates it, or says why it cannot.
    }
    const due = newest ? newest.at.getTime() + this.options.intervalMs : 0;
    this.schedule(new Date(Math.max(due, this.now().getTime() + this.startDelayMs)));
  }

  /** The data directory the folder's backups are of, or null when it names none yet. */
  private async folderOwner(): Promise<string | null> {
    return fsp.readFile(path.join(this.options.dir, OWNER_FILE), 'utf8').then(
      (text) => text.trim() || null,
      () => null,
    );
  }

  /** Creates the folder and marks it as this data directory's, or refuses one that is another's. */
  private async claimFolder(): Promise<void> {
    await fsp.mkdir(this.options.dir, { recursive: true });
    const owner = await this.folderOwner();
    if (owner === null) {
      // Whole or not at all: a full disk must not leave an empty file that names no one.
      const file = path.join(this.options.dir, OWNER_FILE);
      try {
        await fsp.writeFile(`${file}.tmp`, `${this.options.owner}\n`);
        await fsp.rename(`${file}.tmp`, file);
      } finally {
        await fsp.rm(`${file}.tmp`, { force: true });
      }
    }
    else if (owner !== this.options.owner) {
      throw new Error(`the backup folder ${this.options.dir} holds the backups of another data directory (${owner}); choose another with --backup-dir`);
    }
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.nextAt = null;
    return this.running ?? Promise.resolve();
  }

  status(): BackupScheduleView {
    return {
      dir: this.options.dir,
      intervalMs: this.options.intervalMs,
      keep: this.options.keep,
      running: this.running !== null,
      last: this.last,
      next: this.nextAt?.toISOString() ?? null,
      failure: this.failure,
    };
  }

  /** Takes a backup now (the one under way, if any, counts) and schedules the next. */
  runNow(): Promise<void> {
    this.running ??= this.backUp().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private schedule(at: Date): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.nextAt = at;
    const wait = () => {
      const remaining = at.getTime() - this.now().getTime();
      if (remaining > 0) {
        this.timer = setTimeout(wait, Math.min(remaining, MAX_TIMER_MS));
        this.timer.unref();
        return;
      }
      // Due while a backup is still running (it took longer than the interval, or one was taken
      // by hand): runNow would hand back that one and nothing would schedule the next, so the
      // schedule would stop for good. The due backup starts once the running one is over.
      if (this.running) {
        void this.running.finally(() => {
          if (this.nextAt === at) this.schedule(at);
        });
        return;
      }
      void this.runNow();
    };
    wait();
  }

  private async backUp(): Promise<void> {
    const started = this.now();
    const file = path.join(this.options.dir, scheduledBackupName(started));
    // How long the service's event loop (every request) was held at most while the backup ran:
    // the figure that says whether a backup pauses writers (npm run bench reads it from the log).
    const held = monitorEventLoopDelay({ resolution: 10 });
    try {
      await this.claimFolder();
      held.enable();
      const summary = await this.options.write(file).finally(() => held.disable());
      this.last = { at: started.toISOString(), file, bytes: summary.bytes, statements: summary.statements };
      this.failure = null;
      const tookMs = this.now().getTime() - started.getTime();
      this.options.log(
        `backup written: ${file} (${summary.bytes} bytes, ${summary.statements} statements; ${tookMs} ms, the event loop held at most ${Math.round(held.max / 1e6)} ms)`,
      );
      // Scheduled before the prune awaits: the status never shows this backup with the last one's "next".
      this.schedule(new Date(started.getTime() + this.options.intervalMs));
      await this.prune();
    } catch (error) {
      const attempts = (this.failure?.attempts ?? 0) + 1;
      const message = error instanceof Error ? error.message : String(error);
      this.failure = { at: this.now().toISOString(), message, attempts };
      const retryMs = Math.min(this.retryMs * 2 ** (attempts - 1), MAX_RETRY_MS, this.options.intervalMs);
      this.options.log(`backup to ${this.options.dir} failed (attempt ${attempts}): ${message}; retrying in ${Math.round(retryMs / 1000)} s`);
      this.schedule(new Date(this.now().getTime() + retryMs));
    }
  }

  /** Backups in the folder, oldest first. */
  private async backups(): Promise<Array<{ name: string; at: Date }>> {
    const found: Array<{ name: string; at: Date }> = [];
    for (const name of await fsp.readdir(this.options.dir)) {
      const at = backupTime(name);
      if (at) found.push({ name, at });
    }
    return found.sort((a, b) => a.at.getTime() - b.at.getTime());
  }

  /** Deletes the oldest backups beyond `keep`; only files this schedule names. */
  private async prune(): Promise<void> {
    const all = await this.backups();
    for (const { name } of all.slice(0, Math.max(0, all.length - this.options.keep))) {
      await fsp.rm(path.join(this.options.dir, name), { force: true });
      this.options.log(`removed the old backup ${name} (keeping the newest ${this.options.keep})`);
    }
  }
}
