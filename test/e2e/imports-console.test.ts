/**
 * Importing statements from the console in Chromium (docs/import.md): a pull from a second real
 * Lore service, its progress and counts shown as it goes, and an NDJSON file uploaded into another
 * Store. The statements arrive as the source stored them.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startService, type RunningService } from '../../src-server/service/service';
import { ADMIN_TOKEN, SCREENS_DIR, XAPI_HEADERS, basic, buildConsole, findChromium, signIn, startConsoleHarness, statement, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();
const SOURCE_TOKEN = 'e2e-source-admin-token-0123456789';

describe.skipIf(!chromiumPath)('imports in the console', () => {
  let h: ConsoleHarness;
  let page: Page;
  let source: RunningService;
  let sourceDir: string;
  let sourceKey: { id: string; secret: string };
  let voidedId: string;
  const admin = (service: RunningService, token: string, path: string, body: unknown) =>
    fetch(`${service.url}/admin/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    await buildConsole();
    sourceDir = mkdtempSync(join(tmpdir(), 'lore-e2e-source-'));
    source = await startService({ port: 0, host: '127.0.0.1', dataDir: sourceDir, adminToken: SOURCE_TOKEN });
    expect((await admin(source, SOURCE_TOKEN, '/stores', { slug: 'origin', name: 'Origin' })).status).toBe(201);
    sourceKey = (await (await admin(source, SOURCE_TOKEN, '/stores/origin/keys', { name: 'export' })).json()) as { id: string; secret: string };
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = randomUUID();
      ids.push(id);
      const response = await fetch(`${source.url}/origin/xAPI/statements`, {
        method: 'POST',
        headers: { ...XAPI_HEADERS, Authorization: basic(sourceKey.id, sourceKey.secret) },
        body: JSON.stringify({ id, ...statement(`learner${i}@example.com`, `Learner ${i}`, `http://example.com/courses/${i}`, `Course ${i}`) }),
      });
      expect(response.status).toBe(200);
    }
    voidedId = ids[3]!;
    const voiding = await fetch(`${source.url}/origin/xAPI/statements`, {
      method: 'POST',
      headers: { ...XAPI_HEADERS, Authorization: basic(sourceKey.id, sourceKey.secret) },
      body: JSON.stringify({ actor: { mbox: 'mailto:admin@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } }, object: { objectType: 'StatementRef', id: voidedId } }),
    });
    expect(voiding.status).toBe(200);

    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    expect((await admin(h.service, ADMIN_TOKEN, '/stores', { slug: 'course', name: 'Course' })).status).toBe(201);
    expect((await admin(h.service, ADMIN_TOKEN, '/stores', { slug: 'archive', name: 'Archive' })).status).toBe(201);
    await signIn(page, h.service.url, 'course');
  }, 150_000);

  afterAll(async () => {
    await h?.close();
    await source?.stop();
    if (sourceDir) rmSync(sourceDir, { recursive: true, force: true });
  });

  async function openImport(slug: string) {
    await page.evaluate(`window.location.hash = '#/stores'`);
    await page.getByRole('button', { name: `More actions for ${slug}` }).click();
    await page.getByRole('menuitem', { name: 'Import statements…' }).click();
    return page.getByRole('dialog');
  }

  async function statementsOf(service: RunningService, token: string, slug: string): Promise<Array<{ id: string; stored: string; timestamp: string }>> {
    const key = (await (await admin(service, token, `/stores/${slug}/keys`, { name: `reader ${randomUUID()}` })).json()) as { id: string; secret: string };
    const response = await fetch(`${service.url}/${slug}/xAPI/statements?ascending=true`, { headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) } });
    const body = (await response.json()) as { statements: Array<{ id: string; stored: string; timestamp: string }> };
    return body.statements.map(({ id, stored, timestamp }) => ({ id, stored, timestamp }));
  }

  it('pulls from another LRS and shows the counts at the end', { timeout: 45_000 }, async () => {
    const dialog = await openImport('course');
    await dialog.getByText('None yet.').waitFor();
    await dialog.getByLabel('xAPI endpoint').fill(`${source.url}/origin/xAPI/`);
    // Required fields' labels end in an asterisk.
    await dialog.getByLabel(/^Key/).fill(sourceKey.id);
    await dialog.getByLabel(/^Secret/).fill(sourceKey.secret);
    await dialog.getByRole('button', { name: 'Start the import' }).click();

    const row = dialog.locator('tr[data-state="finished"]');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.locator('[data-count="read"]').innerText()).toBe('11');
    expect(await row.locator('[data-count="imported"]').innerText()).toBe('11');
    expect(await row.locator('[data-count="voided"]').innerText()).toBe('1');
    expect(await row.locator('[data-count="invalid"]').innerText()).toBe('0');
    expect(await dialog.innerText()).not.toContain(sourceKey.secret);
    expect(await statementsOf(h.service, ADMIN_TOKEN, 'course')).toEqual(await statementsOf(source, SOURCE_TOKEN, 'origin'));
    await page.keyboard.press('Escape');
  });

  it('imports an NDJSON file and lists its bad lines', { timeout: 45_000 }, async () => {
    const listed = await statementsOf(source, SOURCE_TOKEN, 'origin');
    const key = (await (await admin(source, SOURCE_TOKEN, '/stores/origin/keys', { name: 'file' })).json()) as { id: string; secret: string };
    const full = async (id: string) => {
      const response = await fetch(`${source.url}/origin/xAPI/statements?statementId=${id}`, { headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) } });
      return (await response.json()) as unknown;
    };
    const lines = [...(await Promise.all(listed.map((s) => full(s.id)))).map((s) => JSON.stringify(s)), 'this is not JSON'];
    const dialog = await openImport('archive');
    const chooser = page.waitForEvent('filechooser');
    await dialog.getByRole('button', { name: 'Import a file (.ndjson)' }).click();
    await (await chooser).setFiles({ name: 'origin.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.join('\n')) });

    const row = dialog.locator('tr[data-state="finished"]');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.innerText()).toContain('origin.ndjson');
    expect(await row.locator('[data-count="imported"]').innerText()).toBe(String(listed.length));
    expect(await row.locator('[data-count="invalid"]').innerText()).toBe('1');
    await dialog.getByText(`Line ${lines.length}: Not JSON`).waitFor();
    await page.screenshot({ path: `${SCREENS_DIR}/imports.png`, animations: 'disabled' });
    expect(await statementsOf(h.service, ADMIN_TOKEN, 'archive')).toEqual(listed);
    expect(h.pageErrors).toEqual([]);
  });
});
