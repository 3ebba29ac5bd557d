/**
 * A small tmpfs for tests of a full disk: mounted over a scratch directory (root on Linux only),
 * and filled by a filler file until the file system refuses.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** `owner`: the user its root belongs to (mode 0700), for a server that runs as another user. */
export function mountTmpfs(dir: string, size = '8m', owner?: { uid: number; gid: number }): void {
  const ownership = owner ? `,uid=${owner.uid},gid=${owner.gid},mode=0700` : '';
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}${ownership}`, 'tmpfs', dir], { stdio: 'ignore' });
}

export function unmount(dir: string): void {
  execFileSync('umount', [dir]);
}

/** Whether this process may mount a tmpfs: tried once on a scratch directory, undone at once. */
export function canMount(): boolean {
  if (process.platform !== 'linux') return false;
  const probe = mkdtempSync(join(tmpdir(), 'lore-mount-probe-'));
  try {
    mountTmpfs(probe);
    unmount(probe);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Writes to `file` until the file system refuses (ENOSPC). */
export function fillDisk(file: string): void {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const fd = openSync(file, 'w');
  try {
    for (let i = 0; i < 1024; i++) writeSync(fd, chunk);
    throw new Error('the tmpfs did not fill up');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
}
