/**
 * Data out in Chromium: the Explorer's Export downloads what the current filter shows (every page
 * of it, as CSV and NDJSON), and the audit log screen shows that export and the other admin
 * actions, refused ones too, as they happen.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SCREENS_DIR, XAPI_HEADERS, adminRequest, basic, buildConsole, findChromium, signIn, startConsoleHarness, statement, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

describe.skipIf(!chromiumPath)('export and the audit log in the console', () => {
  let h: ConsoleHarness;
  let page: Page;
  /** Ada's statements' ids, newest first, and Grace's. */
  let ada: string[];
  let grace: string[];
  const admin = (method: string, path: string, body?: unknown) => adminRequest(h.service.url, method, path, body);

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    expect((await admin('POST', '/stores', { slug: 'course', name: 'Course' })).status).toBe(201);
    const key = (await (await admin('POST', '/stores/course/keys', { name: 'storyline' })).json()) as { id: string; secret: string };
    const send = async (email: string, name: string, count: number) => {
      const bodies = Array.from({ length: count }, (_, i) => statement(email, name, `http://example.com/module/${i}`, `Module ${i}`, i / count));
      const response = await fetch(`${h.service.url}/course/xAPI/statements`, { method: 'POST', headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) }, body: JSON.stringify(bodies) });
      expect(response.status).toBe(200);
      // In the order sent: an export is oldest first.
      return (await response.json()) as string[];
    };
    // More of Ada's than one Explorer page holds: the export is every page, not the one on screen.
    ada = await send('ada@example.com', 'Ada Lovelace', 60);
    grace = await send('grace@example.com', 'Grace Hopper', 5);
    await signIn(page, h.service.url, 'course');
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  async function exportAs(format: 'csv' | 'ndjson'): Promise<{ name: string; text: string }> {
    const download = page.waitForEvent('download', { timeout: 15_000 });
    await page.getByTestId('export-menu').click();
    await page.getByTestId(`export-${format}`).click();
    const file = await download;
    return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
  }

  it("exports what the Explorer's filter shows, every page of it", async () => {
    await page.evaluate(`window.location.hash = '#/explorer/course?actor=ada%40example.com'`);
    await page.getByRole('table', { name: 'Statements of course' }).waitFor();
    const shown = await page.locator('tbody tr[data-status]').count();
    expect(shown).toBeLessThan(ada.length);

    const csv = await exportAs('csv');
    expect(csv.name).toMatch(/^course-statements-[0-9TZ-]+\.csv$/);
    const lines = csv.text.split('\r\n').filter((line) => line !== '');
    expect(lines[0]).toMatch(/^status,stored,timestamp,actor_name,actor_ifi,/);
    const ids = lines.slice(1).map((line) => line.split(',')[15]);
    expect(ids).toEqual(ada);
    expect(csv.text).not.toContain('grace@example.com');
    await page.getByText(`Export saved: ${csv.name}`).waitFor();

    const ndjson = await exportAs('ndjson');
    const statements = ndjson.text.trim().split('\n').map((line) => JSON.parse(line) as { id: string; actor: { mbox: string } });
    expect(statements.map((s) => s.id)).toEqual(ada);
    expect(new Set(statements.map((s) => s.actor.mbox))).toEqual(new Set(['mailto:ada@example.com']));

    // Another filter, another file: Grace's.
    await page.evaluate(`window.location.hash = '#/explorer/course?actor=grace%40example.com'`);
    await page.locator('tbody tr[data-status]').first().waitFor();
    await expect.poll(() => page.locator('tbody tr[data-status]').count()).toBe(grace.length);
    const graceCsv = await exportAs('csv');
    expect(graceCsv.text.split('\r\n').filter((line) => line !== '').slice(1).map((line) => line.split(',')[15])).toEqual(grace);
  });

  it('shows the admin actions in the audit log as they happen, refused ones too', async () => {
    await page.evaluate(`window.location.hash = '#/audit'`);
    const table = page.getByRole('table', { name: 'Audit log' });
    await table.waitFor();
    // The exports of the test before, made from this console, over HTTP with the admin token.
    await expect.poll(() => table.locator('tbody tr[data-action="statements.export"]').count()).toBe(3);
    expect(await table.locator('tbody tr[data-action="store.create"]').innerText()).toMatch(/course[\s\S]*admin token/);

    // Done elsewhere while the screen is open: it shows without a reload.
    expect((await admin('PATCH', '/stores/course', { name: 'Course, renamed' })).status).toBe(200);
    expect((await admin('POST', '/stores/nowhere/empty')).status).toBe(404);
    await table.locator('tbody tr[data-action="store.update"]').getByText(/name: Course, renamed/).waitFor({ timeout: 10_000 });
    await table.locator('tbody tr[data-action="store.empty"][data-outcome="failed"]').getByText(/store_not_found/).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: `${SCREENS_DIR}/audit-log.png`, fullPage: true, animations: 'disabled' });
    expect(h.pageErrors).toEqual([]);
  });
});
