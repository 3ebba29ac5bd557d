/**
 * The backup card on the status screen in Chromium: scheduled backups as they happen (last, next)
 * and a failing one, reported with its reason and its retry.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, buildConsole, findChromium, startConsoleHarness, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

describe.skipIf(!chromiumPath)('the backup card in Chromium', () => {
  const open: ConsoleHarness[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'lore-e2e-backups-'));
  afterEach(async () => {
    for (const h of open.splice(0)) await h.close();
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function statusScreen(backupDir: string): Promise<ConsoleHarness> {
    await buildConsole();
    const h = await startConsoleHarness(chromiumPath!, { backups: { dir: backupDir, intervalMs: 2000, keep: 3 } });
    open.push(h);
    await h.page.goto(`${h.service.url}/admin/`);
    await h.page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await h.page.getByRole('button', { name: 'Sign in' }).click();
    await h.page.getByRole('heading', { name: 'No Stores yet' }).waitFor();
    await h.page.evaluate(`window.location.hash = '#/connection'`);
    return h;
  }

  it('shows where backups go, the last one (time, size, statements) and the next', async () => {
    const h = await statusScreen(join(scratch, 'good'));
    const card = h.page.getByTestId('scheduled-backups');
    await card.waitFor();
    expect(await card.innerText()).toContain(`Every 2 seconds to ${join(scratch, 'good')}, keeping the newest 3.`);
    // The service's status is read again as the screen refreshes; a backup appears by itself.
    await expect
      .poll(async () => {
        await h.page.reload();
        return h.page.getByTestId('scheduled-backups').innerText();
      }, { timeout: 20_000 })
      .toMatch(/Last backup: .+ \d+(\.\d)? KB, 0 statements[\s\S]*Next backup: /);
  }, 60_000);

  it('shows a backup that fails, with the reason and when it is tried again', async () => {
    // A file where the folder should be: every attempt fails until it is moved away.
    const blocked = join(scratch, 'blocked');
    writeFileSync(blocked, 'not a folder');
    const h = await statusScreen(blocked);
    await expect
      .poll(async () => {
        await h.page.reload();
        return h.page.getByRole('alert').filter({ hasText: 'backup' }).innerText().catch(() => '');
      }, { timeout: 20_000 })
      .toMatch(/The last (\d+ )?backups? failed[\s\S]*(EEXIST|ENOTDIR)[\s\S]*tried again/);
  }, 60_000);
});
