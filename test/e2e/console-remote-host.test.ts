/**
 * The console opened from another machine, as http://lrs.test:<port>/admin/ (Chromium resolves the
 * name to this machine): plain http under a name that is not loopback, so no secure context and no
 * navigator.clipboard. The endpoints it shows name lrs.test, and its copy buttons still copy
 * (execCommand), or, where even that fails, select the value and say which keys to press.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, basic, buildConsole, findChromium, startConsoleHarness, statement, XAPI_HEADERS, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

describe.skipIf(!chromiumPath)('the console from another machine, over plain http', () => {
  let h: ConsoleHarness;
  let page: Page;
  let origin = '';
  const key = { id: '', secret: '' };
  const dialog = () => page.getByRole('dialog');

  /** The clipboard as a page of a secure origin (http://127.0.0.1) reads it: lrs.test's page has no clipboard API. */
  async function clipboardText(): Promise<string> {
    const reader = await h.context.newPage();
    try {
      await reader.goto(`${h.service.url}/health`);
      await reader.bringToFront();
      return (await reader.evaluate('navigator.clipboard.readText()')) as string;
    } finally {
      await reader.close();
      await page.bringToFront();
    }
  }

  beforeAll(async () => {
    await buildConsole();
    // Beyond loopback: a service on 127.0.0.1 answers admin requests for loopback names only.
    h = await startConsoleHarness(chromiumPath!, { host: '0.0.0.0' }, { hostNames: ['lrs.test'] });
    page = h.page;
    origin = `http://lrs.test:${h.service.port}`;
    const created = await fetch(`${h.service.url}/admin/api/stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'demo', name: 'Demo' }),
    });
    expect(created.status).toBe(201);
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('opens as no secure context, signs in, and shows the endpoints under lrs.test', async () => {
    await page.goto(`${origin}/admin/`);
    expect(await page.evaluate('[window.isSecureContext, typeof navigator.clipboard]')).toEqual([false, 'undefined']);
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const row = page.locator('tr[data-store="demo"]');
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain(`${origin}/demo/xAPI/`);
  });

  it("copies a Store's endpoint with execCommand, and says Copied", async () => {
    await page.getByRole('button', { name: 'Copy endpoint of demo' }).click();
    await page.getByRole('tooltip', { name: 'Copied' }).waitFor();
    expect(await clipboardText()).toBe(`${origin}/demo/xAPI/`);
  });

  it("copies a new key's secret, and the key's endpoint and snippets name lrs.test", async () => {
    await page.evaluate(`window.location.hash = '#/keys/demo'`);
    await page.getByRole('button', { name: 'Create the first key' }).click();
    await dialog().getByLabel('Name').fill('Remote laptop');
    await dialog().getByRole('button', { name: 'Create key' }).click();
    const created = page.getByRole('dialog', { name: 'API key created' });
    await created.waitFor();
    await expect(created.locator('[data-copy-value="Endpoint"]').textContent()).resolves.toBe(`${origin}/demo/xAPI/`);
    await expect(created.locator('[data-copy-value="curl command"]').textContent()).resolves.toContain(`'${origin}/demo/xAPI/statements'`);
    key.id = (await created.locator('[data-copy-value="Key id"]').textContent()) ?? '';
    key.secret = (await created.locator('[data-copy-value="Secret"]').textContent()) ?? '';
    expect(key.secret).not.toBe('');
    await created.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('tooltip', { name: 'Copied' }).waitFor();
    expect(await clipboardText()).toBe(key.secret);
    await created.getByRole('button', { name: 'I have copied it' }).click();
    await created.waitFor({ state: 'detached' });
  });

  it("copies a statement's JSON from the Explorer", async () => {
    const sent = await fetch(`${h.service.url}/demo/xAPI/statements`, {
      method: 'POST',
      headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) },
      body: JSON.stringify(statement('ada@example.com', 'Ada', 'http://example.com/courses/module-1', 'Module 1')),
    });
    expect(sent.status).toBe(200);
    await page.evaluate(`window.location.hash = '#/explorer/demo'`);
    await page.locator('tr[data-status="accepted"]').getByTestId('statement-open').click();
    await dialog().getByRole('button', { name: 'Copy JSON' }).click();
    await dialog().getByRole('button', { name: 'Copied' }).waitFor();
    expect(JSON.parse(await clipboardText())).toMatchObject({ actor: { mbox: 'mailto:ada@example.com' } });
  });

  it('where nothing copies, selects the value and asks for Ctrl+C, which then copies it', async () => {
    // A browser that allows no copying from script at all.
    await page.evaluate('document.execCommand = () => false');
    const json = (await dialog().getByTestId('statement-json').textContent()) ?? '';
    await dialog().getByRole('button', { name: 'Copy JSON' }).click();
    await dialog().getByRole('button', { name: 'Press Ctrl+C to copy' }).waitFor();
    expect(await page.evaluate('String(window.getSelection())')).toBe(json);
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });

    // A field's button selects the field.
    await page.evaluate(`window.location.hash = '#/keys/demo'`);
    await page.getByTestId('connect-card').getByRole('button', { name: 'Copy endpoint' }).click();
    await page.getByRole('tooltip', { name: 'Press Ctrl+C to copy' }).waitFor();
    expect(await page.evaluate('String(window.getSelection())')).toBe(`${origin}/demo/xAPI/`);
    await page.keyboard.press('Control+C');
    expect(await clipboardText()).toBe(`${origin}/demo/xAPI/`);

    // A button with no field beside it shows the value in a popover, selected there.
    await page.getByRole('button', { name: 'Copy key id of Remote laptop' }).click();
    await page.getByRole('dialog').getByText('Press Ctrl+C to copy').waitFor();
    expect(await page.evaluate('String(window.getSelection())')).toBe(key.id);
  });
});
