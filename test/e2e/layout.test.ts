/**
 * Nothing the console shows is cut off at 1400 px or 1024 px wide: status badges, the Store
 * picker with a long Store name, and the Explorer's cells. And what an author needs to connect a
 * course: the endpoint and key ids with copy buttons, and the authoring tool guide.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, XAPI_HEADERS, basic, buildConsole, findChromium, startConsoleHarness, statement, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();
const SLUG = 'onboarding-course-regional-sales';
const NAME = 'Onboarding course for the regional sales team, autumn 2026';

/** Elements whose content is wider than their box (clipped or ellipsed), described for a failure message. */
function clipped(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})]
    .filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => (el.value || el.textContent || '').trim() + ' (' + el.scrollWidth + ' > ' + el.clientWidth + ')')`) as Promise<string[]>;
}

describe.skipIf(!chromiumPath)('the console at 1400 px and 1024 px', () => {
  let h: ConsoleHarness;
  let page: Page;

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    const admin = (path: string, body: unknown) =>
      fetch(`${h.service.url}/admin/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await admin('/stores', { slug: SLUG, name: NAME })).status).toBe(201);
    const key = (await (await admin(`/stores/${SLUG}/keys`, { name: 'Storyline course export' })).json()) as { id: string; secret: string };
    const send = (body: unknown) => fetch(`${h.service.url}/${SLUG}/xAPI/statements`, { method: 'POST', headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) }, body: JSON.stringify(body) });
    expect((await send(statement('ada@example.com', 'Ada Lovelace', 'http://example.com/courses/onboarding/module-1', 'Module 1: welcome'))).status).toBe(200);
    expect((await send({ actor: { mbox: 'ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/x' } })).status).toBe(400);
    // Accepted with a warning: the verb has no display.
    expect((await send({ actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' }, object: { id: 'http://example.com/x' } })).status).toBe(200);
    await page.goto(`${h.service.url}/admin/`);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator(`tr[data-store="${SLUG}"]`).waitFor();
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('shows the endpoint and each key id with copy buttons, and opens the authoring tool guide', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.evaluate(`window.location.hash = '#/keys/${SLUG}'`);
    const card = page.getByTestId('connect-card');
    await expect.poll(() => card.locator('[data-copy-value="Endpoint"]').textContent()).toBe(`${h.service.url}/${SLUG}/xAPI/`);
    await card.getByRole('button', { name: 'Copy endpoint' }).waitFor();
    await page.getByRole('button', { name: /^Copy key id of storyline course export$/i }).waitFor();
    await card.getByRole('button', { name: 'Authoring tool guide' }).click();
    const guide = page.getByRole('dialog', { name: 'Connecting authoring tools to Lore' });
    for (const tool of ['Articulate Storyline 360', 'Articulate Rise 360', 'Adobe Captivate', 'iSpring Suite', 'Lectora', 'Adapt (adapt-contrib-xapi)', 'H5P']) {
      await guide.getByRole('heading', { name: tool }).waitFor();
    }
    await page.keyboard.press('Escape');
    await guide.waitFor({ state: 'hidden' });
  });

  it('shows statements accepted with warnings, and filters on them as soon as the switch is turned', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.evaluate(`window.location.hash = '#/explorer/${SLUG}'`);
    await page.locator('tr[data-status="rejected"]').waitFor();
    await page.getByTestId('warning-line').getByText('1 warning: verb.display').waitFor();
    await page.getByRole('switch', { name: 'Only with warnings' }).click({ timeout: 5000 });
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByTestId('statement-open').click({ timeout: 5000 });
    await page.getByTestId('statement-warnings').getByText('the verb has no display').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached', timeout: 5000 });
    await page.getByRole('switch', { name: 'Only with warnings' }).click({ timeout: 5000 });
    await expect.poll(() => page.locator('tbody tr').count()).toBe(3);
  });

  for (const width of [1400, 1024]) {
    it(`cuts off no badge, Store name or cell at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 900 });
      for (const [hash, ready] of [
        ['#/stores', `tr[data-store="${SLUG}"]`],
        [`#/explorer/${SLUG}`, 'tr[data-status="rejected"]'],
        [`#/keys/${SLUG}`, 'tr[data-key]'],
      ] as const) {
        await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
        await page.locator(ready).first().waitFor();
        expect(await clipped(page, '.mantine-Badge-label'), `badges on ${hash}`).toEqual([]);
        expect(await clipped(page, 'input'), `inputs on ${hash}`).toEqual([]);
        expect(await clipped(page, 'td'), `cells on ${hash}`).toEqual([]);
      }
    });
  }
});
