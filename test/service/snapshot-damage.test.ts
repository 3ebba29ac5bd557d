/**
 * A damaged snapshot as an operator meets it, with the real service, scheduled backups and the
 * restore command: the start refuses and names the damage; the newest backup plus the journal
 * written since bring back every acknowledged statement.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceStatusView } from '../../src-server/admin/contract';
import { PAGE_BYTES } from '../../src-server/storage/sqljs/file-changes';
import { runScript, scratchDir } from './scripts';
import { createStoreAndKey, spawnService, startService, xapiHeaders } from './service-process';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const scratch = (prefix: string) => scratchDir(prefix, cleanups);
const restore = (args: string[]) => runScript('restore', args);

const statement = (id: string) => ({ id, actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: `http://example.com/a/${id}` } });

describe('a damaged snapshot', () => {
  it('refuses to start, naming it; the newest backup and the journal since bring back every acknowledged statement', async () => {
    const dataDir = scratch('lore-snapshot-damage-');
    const backupDir = join(scratch('lore-snapshot-damage-backups-'), 'backups');
    // A snapshot after nearly every write: the journal since the backup survives only because it is kept for it.
    const env = { LRS_BACKUP_INTERVAL: '1s', LRS_BACKUP_DIR: backupDir, LRS_BACKUP_KEEP: '2', LORE_SNAPSHOT_THRESHOLD_BYTES: '1' };
    const first = await startService(dataDir, env);
    const { basic } = await createStoreAndKey(first, 'course');
    const post = async (ids: string[]) =>
      expect((await fetch(`${first.url}/course/xAPI/statements`, { method: 'POST', headers: xapiHeaders(basic), body: JSON.stringify(ids.map(statement)) })).status).toBe(200);
    const before = Array.from({ length: 200 }, () => randomUUID());
    await post(before);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const status = (await (await first.admin('/status')).json()) as ServiceStatusView;
      if ((status.backups?.last?.statements ?? 0) === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Acknowledged after the backup: only the journal holds them (the process dies before another snapshot).
    const after = Array.from({ length: 20 }, () => randomUUID());
    await post(after);
    first.child.kill('SIGKILL');
    await first.exited;

    const file = join(dataDir, 'lore.sqlite');
    const image = readFileSync(file);
    const middle = Math.floor(image.length / PAGE_BYTES / 2);
    image.fill(0x55, middle * PAGE_BYTES, (middle + 2) * PAGE_BYTES);
    writeFileSync(file, image);

    const refused = spawnService(dataDir, [], env);
    expect((await refused.exited).code).toBe(1);
    expect(refused.output()).toContain(`${file} is damaged: 2 pages: ${middle}`);
    expect(refused.output()).toContain('--replay-journal');

    const listed = await restore(['--data-dir', dataDir, '--backup-dir', backupDir, '--list']);
    const newest = /^\s+(\S+lore-backup-\S+\.sqlite)/m.exec(listed.output)?.[1];
    expect(newest, listed.output).toBeDefined();
    const restored = await restore(['--data-dir', dataDir, '--from', newest!, '--replay-journal']);
    expect(restored.output).toMatch(/the next start replays journal records \d+ to \d+, written since the backup/);
    expect(restored.code).toBe(0);

    const second = await startService(dataDir, env);
    cleanups.push(async () => {
      second.child.kill('SIGTERM');
      await second.exited;
    });
    const missing: string[] = [];
    for (const id of [...before, ...after]) {
      const response = await fetch(`${second.url}/course/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(basic) });
      if (response.status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  }, 90_000);
});
