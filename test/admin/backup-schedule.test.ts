/**
 * The backup schedule on its own, with a writer that writes small files (or fails on demand):
 * when it runs, what it keeps, how it reports and retries a failure, and whose folder it is.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BackupSchedule, OWNER_FILE, backupTime, scheduledBackupName } from '../../src-server/admin/backup-schedule';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lore-backups-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function schedule(dir: string, overrides: Partial<ConstructorParameters<typeof BackupSchedule>[0]> = {}) {
  const log: string[] = [];
  const control = { fail: null as string | null, written: 0 };
  const backups = new BackupSchedule({
    dir,
    intervalMs: 100,
    keep: 3,
    owner: '/data/lore',
    startDelayMs: 0,
    retryMs: 20,
    log: (message) => log.push(message),
    write: async (file) => {
      if (control.fail) throw new Error(control.fail);
      writeFileSync(file, 'backup');
      control.written++;
      return { bytes: 6, journalSeq: control.written, stores: 1, statements: 10 * control.written, rejections: 0 };
    },
    ...overrides,
  });
  cleanups.push(() => backups.stop());
  return { backups, log, control };
}

const backupFiles = (dir: string) => readdirSync(dir).filter((name) => backupTime(name) !== null).sort();

describe('scheduled backups', () => {
  it('names backups by their time, to the millisecond, and reads the time back', () => {
    const at = new Date('2026-11-25T04:12:00.123Z');
    expect(scheduledBackupName(at)).toBe('lore-backup-2026-11-25T04-12-00-123Z.sqlite');
    expect(backupTime(scheduledBackupName(at))).toEqual(at);
    // A backup downloaded from the console (no milliseconds) counts too; other files do not.
    expect(backupTime('lore-backup-2026-11-25T04-12-00Z.sqlite')).toEqual(new Date('2026-11-25T04:12:00.000Z'));
    expect(backupTime('notes.txt')).toBeNull();
  });

  it('backs up soon after start, then every interval, keeping the newest `keep`', async () => {
    const dir = folder();
    const { backups, control, log } = schedule(dir);
    await backups.start();
    await until(() => control.written >= 5, 'five backups');
    // Each says how long it held the service's event loop: what npm run bench reads.
    expect(log.join('\n')).toMatch(/backup written: .* \(6 bytes, 10 statements; \d+ ms, the event loop held at most \d+ ms\)/);
    await backups.stop();
    expect(backupFiles(dir)).toHaveLength(3);
    const status = backups.status();
    expect(status).toMatchObject({ dir, keep: 3, intervalMs: 100, failure: null, next: null, running: false });
    expect(status.last?.file).toBe(join(dir, backupFiles(dir).at(-1)!));
    expect(status.last?.statements).toBe(10 * control.written);
  });

  it('goes on when a backup takes longer than the interval: the next one starts when it is over', async () => {
    const dir = folder();
    let written = 0;
    const { backups } = schedule(dir, {
      intervalMs: 30,
      write: async (file) => {
        await new Promise((resolve) => setTimeout(resolve, 80));
        writeFileSync(file, 'backup');
        written++;
        return { bytes: 6, journalSeq: written, stores: 1, statements: written, rejections: 0 };
      },
    });
    await backups.start();
    await until(() => written >= 4, 'four backups, each longer than the interval');
    expect(backups.status().failure).toBeNull();
  });

  it('reports a failure, retries it sooner than the interval, and clears it once a backup works', async () => {
    const dir = folder();
    const { backups, control, log } = schedule(dir, { intervalMs: 60_000 });
    control.fail = 'ENOSPC: no space left on device';
    await backups.start();
    await until(() => (backups.status().failure?.attempts ?? 0) >= 2, 'two failed attempts');
    const failed = backups.status();
    expect(failed.failure?.message).toBe('ENOSPC: no space left on device');
    expect(failed.last).toBeNull();
    // The retry is due well before the interval.
    expect(Date.parse(failed.next!) - Date.now()).toBeLessThan(30_000);
    expect(log.join('\n')).toMatch(/backup to .* failed \(attempt 1\): ENOSPC/);
    expect(backupFiles(dir)).toEqual([]);

    control.fail = null;
    await until(() => control.written === 1 && !backups.status().running, 'the retry that works');
    expect(backups.status().failure).toBeNull();
    // Back to the interval.
    expect(Date.parse(backups.status().next!) - Date.now()).toBeGreaterThan(50_000);
  });

  it('follows the newest backup in the folder: a recent one defers the next, an old one is followed at once', async () => {
    const dir = folder();
    writeFileSync(join(dir, OWNER_FILE), '/data/lore\n');
    const recent = new Date(Date.now() - 60_000);
    writeFileSync(join(dir, scheduledBackupName(recent)), 'old backup');
    const { backups } = schedule(dir, { intervalMs: 3_600_000 });
    await backups.start();
    expect(backups.status().last).toMatchObject({ at: recent.toISOString(), bytes: 10, statements: null });
    expect(Date.parse(backups.status().next!)).toBe(recent.getTime() + 3_600_000);
    await backups.stop();

    const { backups: overdue, control } = schedule(dir, { intervalMs: 30_000 });
    await overdue.start();
    await until(() => control.written === 1, 'the overdue backup');
  });

  it("refuses a folder that holds another data directory's backups, and says so", async () => {
    const dir = folder();
    writeFileSync(join(dir, OWNER_FILE), '/data/other\n');
    const { backups, control, log } = schedule(dir);
    await backups.start();
    expect(backups.status().failure?.message).toMatch(/holds the backups of another data directory \(\/data\/other\)/);
    expect(backups.status().next).toBeNull();
    expect(log.join('\n')).toContain('scheduled backups are off');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(control.written).toBe(0);
  });

  it('removes temporary files a crash left, and never counts them as backups', async () => {
    const dir = folder();
    const left = `${scheduledBackupName(new Date(Date.now() - 1000))}.part`;
    writeFileSync(join(dir, left), 'half');
    const { backups } = schedule(dir, { intervalMs: 3_600_000, startDelayMs: 3_600_000 });
    await backups.start();
    expect(readdirSync(dir)).not.toContain(left);
    expect(backups.status().last).toBeNull();
  });
});
