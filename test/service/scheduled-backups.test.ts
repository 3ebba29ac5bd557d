/**
 * Scheduled backups of the real service process: written by themselves, kept to `--backup-keep`,
 * shown on the status, a failure (a full backup disk) reported and retried until it works, and
 * every backup a whole database that the restore command takes.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceStatusView } from '../../src-server/admin/contract';
import { createStoreAndKey, startService, xapiHeaders, type ServiceProcess } from './service-process';
import { scratchDir, runScript } from './scripts';
import { canMount, fillDisk, mountTmpfs, unmount } from './tmpfs';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const scratch = (prefix: string) => scratchDir(prefix, cleanups);

async function running(dataDir: string, env: Record<string, string>): Promise<ServiceProcess> {
  const service = await startService(dataDir, env);
  cleanups.push(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
  });
  return service;
}

async function status(service: ServiceProcess): Promise<ServiceStatusView> {
  return (await (await service.admin('/status')).json()) as ServiceStatusView;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function statement() {
  return { actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: `http://example.com/a/${randomUUID()}` } };
}

const backupFiles = (dir: string) => readdirSync(dir).filter((name) => /^lore-backup-.*\.sqlite$/.test(name));

describe('scheduled backups of the running service', () => {
  it('writes whole backups by itself, keeps the newest --backup-keep, shows them on the status, and restore takes one', async () => {
    const dataDir = scratch('lore-scheduled-data-');
    const backupDir = join(scratch('lore-scheduled-backups-'), 'backups');
    const service = await running(dataDir, { LRS_BACKUP_INTERVAL: '1s', LRS_BACKUP_DIR: backupDir, LRS_BACKUP_KEEP: '2' });
    const { basic } = await createStoreAndKey(service, 'course');
    const post = await fetch(`${service.url}/course/xAPI/statements`, { method: 'POST', headers: xapiHeaders(basic), body: JSON.stringify([statement(), statement(), statement()]) });
    expect(post.status).toBe(200);

    const seen = await until(() => status(service), (s) => (s.backups?.last?.statements ?? 0) === 3, 'a backup holding the 3 statements');
    expect(seen.backups).toMatchObject({ dir: backupDir, intervalMs: 1000, keep: 2, failure: null });
    expect(Date.parse(seen.backups!.next!)).toBeGreaterThan(Date.parse(seen.backups!.last!.at));
    // More backups follow by themselves; only the newest two stay.
    const times = new Set<string>();
    await until(() => status(service), (s) => (times.add(s.backups?.last?.at ?? ''), times.size >= 4), 'three more backups');
    expect(backupFiles(backupDir)).toHaveLength(2);
    // No temporary file left behind. One a second is written: a look can land on the backup under
    // way, whose .part is gone a moment later; a file left behind never goes.
    const parts = () => Promise.resolve(readdirSync(backupDir).filter((name) => name.endsWith('.part')));
    expect(await until(parts, (names) => names.length === 0, 'no temporary backup file', 5_000)).toEqual([]);

    // The newest backup is a whole database the restore command puts back.
    // Copied first: the service goes on making backups every second and deletes all but the newest
    // two, which on a busy machine can be sooner than the restore command has read the file.
    const newest = join(scratch('lore-scheduled-copy-'), 'newest.sqlite');
    copyFileSync(join(backupDir, backupFiles(backupDir).sort().at(-1)!), newest);
    const restoredDir = scratch('lore-scheduled-restored-');
    const { code, output } = await runScript('restore', ['--data-dir', restoredDir, '--from', newest]);
    expect(code).toBe(0);
    expect(output).toMatch(/1 Stores, 3 statements/);
  }, 60_000);

  it.skipIf(!canMount())('reports a backup disk that is full on the status, retries, and backs up once there is room', async () => {
    const dataDir = scratch('lore-scheduled-data-');
    const mountPoint = scratch('lore-scheduled-tmpfs-');
    mountTmpfs(mountPoint, '2m');
    cleanups.push(() => unmount(mountPoint));
    const backupDir = join(mountPoint, 'backups');
    mkdirSync(backupDir);
    const filler = join(mountPoint, 'filler');
    fillDisk(filler);

    const service = await running(dataDir, { LRS_BACKUP_INTERVAL: '1s', LRS_BACKUP_DIR: backupDir, LRS_BACKUP_KEEP: '3' });
    const failing = await until(() => status(service), (s) => (s.backups?.failure?.attempts ?? 0) >= 2, 'two failed attempts');
    expect(failing.backups!.failure!.message).toMatch(/ENOSPC|no space/i);
    expect(failing.backups!.last).toBeNull();
    expect(backupFiles(backupDir)).toEqual([]);
    expect(service.output()).toMatch(/backup to .* failed \(attempt 1\)/);
    // The service itself is unaffected.
    expect((await service.admin('/stores')).status).toBe(200);

    rmSync(filler);
    const recovered = await until(() => status(service), (s) => s.backups?.last !== null && s.backups?.failure === null, 'a backup once there is room');
    expect(backupFiles(backupDir)).toContain(recovered.backups!.last!.file.split('/').at(-1));
  }, 60_000);
});
