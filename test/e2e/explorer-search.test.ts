/**
 * The Statement Explorer searched as designers do, in real Chromium against a real service: a
 * learner's name typed and picked from the suggestions, the search kept in the URL through a
 * reload, Back and Forward, and a link opened in another tab.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, basic, buildConsole, findChromium, SCREENS_DIR, startConsoleHarness, statement, XAPI_HEADERS, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();
if (!chromiumPath) console.warn('test/e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)');

const MODULE_1 = 'http://example.com/courses/module-1';
const MODULE_2 = 'http://example.com/courses/module-2';
const ATTEMPTED = { id: 'http://adlnet.gov/expapi/verbs/attempted', display: { 'en-US': 'attempted' } };

describe.skipIf(!chromiumPath)('the Statement Explorer searched by name, in Chromium', () => {
  let h: ConsoleHarness;
  let page: Page;

  const admin = async (path: string, body: unknown) => {
    const response = await fetch(`${h.service.url}/admin/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    return response.json() as Promise<Record<string, string>>;
  };
  const rows = (on: Page = page) => on.locator('tr[data-status]');
  /** A filter's input (its suggestions' list is labelled by the same label). */
  const filter = (name: 'Actor' | 'Verb' | 'Activity', on: Page = page) => on.getByRole('combobox', { name });
  const hash = (on: Page = page) => on.evaluate<string>('window.location.hash');
  const signIn = async (on: Page) => {
    await on.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await on.getByRole('button', { name: 'Sign in' }).click();
  };
  /** Every row shown has the text, and there are `count` of them. */
  const expectRows = async (count: number, text?: string, on: Page = page) => {
    await expect.poll(() => rows(on).count(), { timeout: 5000 }).toBe(count);
    if (text !== undefined) for (const row of await rows(on).allTextContents()) expect(row).toContain(text);
  };

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    await admin('/stores', { slug: 'course', name: 'Course' });
    const key = await admin('/stores/course/keys', { name: 'Storyline export' });
    const send = async (body: unknown) =>
      fetch(`${h.service.url}/course/xAPI/statements`, {
        method: 'POST',
        headers: { ...XAPI_HEADERS, Authorization: basic(key.id!, key.secret!) },
        body: JSON.stringify(body),
      });
    const sent = await send([
      statement('ada@example.com', 'Ada Lovelace', MODULE_1, 'Module 1', 0.9),
      { ...statement('ada@example.com', 'Ada Lovelace', MODULE_2, 'Module 2'), verb: ATTEMPTED },
      statement('bob@example.com', 'Bob Dylan', MODULE_1, 'Module 1'),
      statement('grace@example.com', 'Grace Hopper', MODULE_2, 'Module 2'),
    ]);
    expect(sent.status).toBe(200);
    // Refused (a verb id that is no IRI): kept, and found by its actor.
    expect((await send({ ...statement('bob@example.com', 'Bob Dylan', MODULE_2, 'Module 2'), verb: { id: 'finished' } })).status).toBe(400);
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('types "Ada" into the actor filter, picks the suggestion, and shows only her statements', async () => {
    await page.goto(`${h.service.url}/admin/#/explorer/course`);
    await signIn(page);
    await expectRows(5);
    await filter('Actor').fill('Ada');
    const suggestion = page.getByRole('option', { name: /Ada Lovelace/ });
    await suggestion.waitFor();
    await expect(suggestion.textContent()).resolves.toContain('ada@example.com');
    await page.screenshot({ path: `${SCREENS_DIR}/explorer-suggestions-light.png`, animations: 'disabled' });
    await suggestion.click();
    await expectRows(2, 'Ada');
    await expect(filter('Actor').inputValue()).resolves.toBe('mailto:ada@example.com');
    expect(await hash()).toBe('#/explorer/course?actor=mailto%3Aada%40example.com');
  });

  it('shows the same search after a reload, from the URL', async () => {
    await page.reload();
    await expectRows(2, 'Ada');
    await expect(filter('Actor').inputValue()).resolves.toBe('mailto:ada@example.com');
  });

  it('goes Back to every statement and Forward to the search again', async () => {
    await page.goBack();
    await expectRows(5);
    await expect(filter('Actor').inputValue()).resolves.toBe('');
    expect(await hash()).toBe('#/explorer/course');
    await page.goForward();
    await expectRows(2, 'Ada');
    await expect(filter('Actor').inputValue()).resolves.toBe('mailto:ada@example.com');
  });

  it('searches by a word typed and not picked, and keeps it in the URL too', async () => {
    await filter('Verb').fill('attem');
    await filter('Verb').press('Enter');
    await expectRows(1, 'Ada Lovelace attempted');
    expect(await hash()).toBe('#/explorer/course?actor=mailto%3Aada%40example.com&verb=attem');
  });

  it('opens a link pasted into another tab with its filters, status included', async () => {
    const other = await h.context.newPage();
    other.on('pageerror', (error) => h.pageErrors.push(error.message));
    try {
      // Another tab signs in again (the token is kept per tab); the link's search is kept meanwhile.
      await other.goto(`${h.service.url}/admin/#/explorer/course?actor=Bob&status=rejected`);
      await signIn(other);
      await expectRows(1, 'Bob', other);
      await expect(rows(other).first().getAttribute('data-status')).resolves.toBe('rejected');
      await expect(filter('Actor', other).inputValue()).resolves.toBe('Bob');
      await expect(other.locator('[aria-labelledby="status-filter-label"] input:checked').inputValue()).resolves.toBe('rejected');
    } finally {
      await other.close();
    }
  });

  it('raised no error in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
