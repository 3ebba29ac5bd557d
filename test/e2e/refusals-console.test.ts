/**
 * The logs of refused requests in Chromium, live: a Store's beside its statements in the
 * Explorer, the service-wide one on the status screen. Requests are sent as content sends them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, XAPI_HEADERS, basic, buildConsole, findChromium, startConsoleHarness, statement, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

describe.skipIf(!chromiumPath)('refused requests in the console', () => {
  let h: ConsoleHarness;
  let page: Page;
  let key: { id: string; secret: string };
  const admin = (path: string, body: unknown) =>
    fetch(`${h.service.url}/admin/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    expect((await admin('/stores', { slug: 'course', name: 'Course' })).status).toBe(201);
    key = (await (await admin('/stores/course/keys', { name: 'storyline' })).json()) as { id: string; secret: string };
    await page.goto(`${h.service.url}/admin/`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('course').first().waitFor();
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('shows a Store’s refused requests beside its statements, as they happen, with the reason', async () => {
    await page.evaluate(`window.location.hash = '#/explorer/course'`);
    await page.locator('label', { hasText: 'Refused requests' }).click();
    await page.getByTestId('store-refusals').getByText('No refused requests').waitFor();
    // From "Live" on, only a refusal event brings a new row: no reading of the log is due.
    await page.getByTestId('store-refusals').getByText('Live', { exact: true }).waitFor();

    // A course with the wrong secret, and one that sends no version header.
    const endpoint = `${h.service.url}/course/xAPI/statements`;
    const wrong = await fetch(endpoint, { method: 'POST', headers: { ...XAPI_HEADERS, Authorization: basic(key.id, 'not-the-secret'), 'User-Agent': 'Storyline/3.90' }, body: JSON.stringify(statement('ada@example.com', 'Ada', 'http://example.com/c', 'C')) });
    expect(wrong.status).toBe(401);
    const noVersion = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: basic(key.id, key.secret) }, body: JSON.stringify(statement('ada@example.com', 'Ada', 'http://example.com/c', 'C')) });
    expect(noVersion.status).toBe(400);
    const wrongReason = ((await wrong.json()) as { error: { message: string } }).error.message;

    // Live: no reload.
    const table = page.getByRole('table', { name: 'Refused requests of course' });
    await table.getByText(wrongReason).waitFor({ timeout: 10_000 });
    await table.getByText(/X-Experience-API-Version/).first().waitFor({ timeout: 10_000 });
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await table.locator('tbody tr[data-status="401"]').innerText()).toMatch(/POST \/course\/xapi\/statements[\s\S]*Storyline\/3\.90/);
    expect(await table.innerText()).not.toContain('not-the-secret');
  });

  it('counts identical refusals as one row and pages to older ones', async () => {
    await page.evaluate(`window.location.hash = '#/explorer/course'`);
    await page.locator('label', { hasText: 'Refused requests' }).click();
    const table = page.getByRole('table', { name: 'Refused requests of course' });
    await table.waitFor();
    await page.getByTestId('store-refusals').getByText('Live', { exact: true }).waitFor();
    const endpoint = `${h.service.url}/course/xAPI/statements`;
    const withoutVersion = (userAgent: string) =>
      fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: basic(key.id, key.secret), 'User-Agent': userAgent }, body: '[]' });

    // Sent together, identical refusals fall in at most two of the log's one-second windows.
    const repeats = await Promise.all(Array.from({ length: 5 }, () => withoutVersion('Retrying/1.0')));
    expect(repeats.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
    await table.locator('tbody tr', { hasText: 'Retrying/1.0' }).filter({ hasText: /×[2-5]/ }).first().waitFor({ timeout: 10_000 });

    // More distinct refusals than one page holds.
    for (let i = 0; i < 30; i++) expect((await withoutVersion(`Course/${i}`)).status).toBe(400);
    await table.getByText('Course/29').waitFor({ timeout: 10_000 });
    // Opened afresh, the view loads the first page only.
    await page.evaluate(`window.location.hash = '#/stores'`);
    await page.getByRole('heading', { name: 'Stores' }).first().waitFor();
    await page.evaluate(`window.location.hash = '#/explorer/course'`);
    await page.locator('label', { hasText: 'Refused requests' }).click();
    await table.getByText('Course/29').waitFor();
    const all = (await (await fetch(`${h.service.url}/admin/api/stores/course/refusals?limit=500`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { refusals: unknown[] };
    expect(all.refusals.length).toBeGreaterThan(25);
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(25);
    expect(await table.locator('tbody tr[data-status="401"]').count()).toBe(0);
    await page.getByRole('button', { name: 'Show older' }).click();
    await table.locator('tbody tr[data-status="401"]').waitFor();
    expect(await rows.count()).toBe(all.refusals.length);
    expect(await page.getByRole('button', { name: 'Show older' }).count()).toBe(0);
  }, 40_000);

  it('shows requests that name no Store on the status screen, live', async () => {
    await page.evaluate(`window.location.hash = '#/connection'`);
    const log = page.getByTestId('service-refusals');
    await log.getByText('Live', { exact: true }).waitFor();
    const unknown = await fetch(`${h.service.url}/no-such-store/xAPI/statements`, { headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) } });
    expect(unknown.status).toBe(404);
    await log.getByText('/no-such-store/xapi/statements').waitFor({ timeout: 10_000 });
    expect(await log.getByRole('table').innerText()).toMatch(/404/);
  });

  it('raised no error in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
