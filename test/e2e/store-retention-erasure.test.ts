/**
 * A Store's retention and forgetting a learner, in Chromium: the Stores screen's "Retention…"
 * dialog shows and sets the days (the admin API then answers them), and "Forget a learner…" shows
 * what would go before "Erase" removes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SCREENS_DIR, XAPI_HEADERS, adminRequest, basic, buildConsole, findChromium, signIn, startConsoleHarness, statement, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

describe.skipIf(!chromiumPath)('a Store’s retention and erasure in the console', () => {
  let h: ConsoleHarness;
  let page: Page;
  const admin = (method: string, path: string, body?: unknown) => adminRequest(h.service.url, method, path, body);

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    expect((await admin('POST', '/stores', { slug: 'course', name: 'Course' })).status).toBe(201);
    const key = (await (await admin('POST', '/stores/course/keys', { name: 'storyline' })).json()) as { id: string; secret: string };
    const endpoint = `${h.service.url}/course/xAPI/statements`;
    for (const [email, name] of [['ada@example.com', 'Ada'], ['bob@example.com', 'Bob']] as const) {
      const sent = await fetch(endpoint, { method: 'POST', headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) }, body: JSON.stringify(statement(email, name, 'http://example.com/c', 'C')) });
      expect(sent.status).toBe(200);
    }
    await signIn(page, h.service.url, 'course');
    await page.evaluate(`window.location.hash = '#/stores'`);
    await page.getByText('course').first().waitFor();
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('shows the retention (forever by default) and sets days for statements and refused requests', async () => {
    await page.getByRole('button', { name: 'More actions for course' }).click();
    await page.getByRole('menuitem', { name: 'Retention…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Retention of “Course”' });
    const statements = dialog.getByLabel('Statements: days kept', { exact: true });
    expect(await statements.inputValue()).toBe('');
    await dialog.getByText('Kept forever when empty.').waitFor();
    await statements.fill('365');
    await dialog.getByLabel('Refused requests: days kept').fill('7');
    await page.screenshot({ path: `${SCREENS_DIR}/store-retention.png`, animations: 'disabled' });
    await dialog.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Retention of course saved.').waitFor();
    const store = (await (await admin('GET', '/stores/course')).json()) as { retention: unknown };
    expect(store.retention).toEqual({ statementsDays: 365, rejectedDays: null, refusedDays: 7 });

    // Shown again as saved.
    await page.getByRole('button', { name: 'More actions for course' }).click();
    await page.getByRole('menuitem', { name: 'Retention…' }).click();
    expect(await page.getByRole('dialog').getByLabel('Statements: days kept', { exact: true }).inputValue()).toBe('365');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect(h.pageErrors).toEqual([]);
  });

  it('shows what forgetting a learner removes, then erases her and leaves the other learner', async () => {
    await page.getByRole('button', { name: 'More actions for course' }).click();
    await page.getByRole('menuitem', { name: 'Forget a learner…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Forget a learner in “Course”' });
    expect(await dialog.getByRole('button', { name: 'Erase' }).isDisabled()).toBe(true);
    await dialog.getByLabel("The learner's identifiers, one a line").fill('ada@example.com');
    await dialog.getByRole('button', { name: 'Show what would go' }).click();
    await dialog.getByTestId('erasure-preview').getByText('1 statements').waitFor();
    await page.screenshot({ path: `${SCREENS_DIR}/forget-a-learner.png`, animations: 'disabled' });
    await dialog.getByRole('button', { name: 'Erase' }).click();
    await page.getByText('Learner erased from course: 1 statements').waitFor();

    const ledger = (await (await admin('GET', '/stores/course/erasures')).json()) as { erasures: Array<{ counts: { statements: number } }> };
    expect(ledger.erasures.map((e) => e.counts.statements)).toEqual([1]);
    const page1 = (await (await admin('GET', '/stores/course/statements')).json()) as { records: unknown[] };
    expect(JSON.stringify(page1.records)).not.toContain('ada@example.com');
    expect(JSON.stringify(page1.records)).toContain('bob@example.com');
    expect(h.pageErrors).toEqual([]);
  });
});
