/**
 * The Forwarding screen in Chromium: a webhook to a test receiver added in its dialog, a statement
 * sent as content sends it, delivered (the receiver checks the signature) and shown as delivered;
 * the receiver refusing it shows as a dead letter, which the screen redelivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TestReceiver, waitFor } from '../forwarding/receiver';
import { XAPI_HEADERS, SCREENS_DIR, adminRequest, basic, buildConsole, findChromium, signIn, startConsoleHarness, statement, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();
const SECRET = 'console-webhook-secret-01234';

describe.skipIf(!chromiumPath)('forwarding in the console', () => {
  let h: ConsoleHarness;
  let page: Page;
  let key: { id: string; secret: string };
  const receiver = new TestReceiver(SECRET);
  const admin = (path: string, body: unknown) => adminRequest(h.service.url, 'POST', path, body);
  const send = async (email: string) => {
    const response = await fetch(`${h.service.url}/course/xAPI/statements`, {
      method: 'POST',
      headers: { ...XAPI_HEADERS, Authorization: basic(key.id, key.secret) },
      body: JSON.stringify(statement(email, 'Ada', 'http://example.com/c', 'C')),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as string[])[0]!;
  };

  beforeAll(async () => {
    await buildConsole();
    await receiver.up();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
    expect((await admin('/stores', { slug: 'course', name: 'Course' })).status).toBe(201);
    key = (await (await admin('/stores/course/keys', { name: 'storyline' })).json()) as { id: string; secret: string };
    await signIn(page, h.service.url, 'course');
  }, 150_000);

  afterAll(async () => {
    await h?.close();
    await receiver.down();
  });

  it('adds a webhook and shows the statements delivered to it', async () => {
    await page.getByRole('link', { name: /Forwarding/ }).click();
    await page.getByText('No destinations yet').waitFor();
    await page.getByRole('button', { name: 'Add destination' }).click();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByLabel('Signing secret').fill(SECRET);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const table = page.getByRole('table', { name: 'Destinations' });
    await table.getByText(receiver.url).waitFor();
    expect(await table.innerText()).not.toContain(SECRET);

    const id = await send('ada@example.com');
    await waitFor(() => receiver.ids.includes(id), 'the statement at the receiver');
    expect(receiver.batches[0]!.signed).toBe(true);
    // Live: the screen follows the Store's statements, no reload.
    await table.getByTestId('delivered').waitFor({ timeout: 10_000 });
    await expect.poll(() => table.getByTestId('pending').innerText(), { timeout: 10_000 }).toBe('0');
    await page.screenshot({ path: `${SCREENS_DIR}/forwarding.png`, fullPage: true, animations: 'disabled' });
  });

  it('shows a refused statement as a dead letter and redelivers it', async () => {
    receiver.answer = 422;
    const id = await send('grace@example.com');
    const table = page.getByRole('table', { name: 'Destinations' });
    const deadLetters = table.getByRole('button', { name: '1', exact: true });
    await deadLetters.waitFor({ timeout: 10_000 });
    receiver.answer = 200;
    await deadLetters.click();
    await page.getByText('1 statement(s)').waitFor();
    await page.getByRole('dialog').getByText(id).waitFor();
    await page.screenshot({ path: `${SCREENS_DIR}/forwarding-dead-letters.png`, fullPage: true, animations: 'disabled' });
    await page.getByRole('button', { name: 'Redeliver all' }).click();
    await waitFor(() => receiver.ids.includes(id), 'the redelivered statement');
    await deadLetters.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('pauses and deletes', async () => {
    const table = page.getByRole('table', { name: 'Destinations' });
    await table.getByRole('button', { name: 'Pause' }).click();
    await table.getByText('(paused)').waitFor();
    await table.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByRole('dialog', { name: 'Delete this destination?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No destinations yet').waitFor();
  });

  it('adds a destination with a filter and shows it', async () => {
    await page.getByRole('button', { name: 'Add destination' }).click();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByLabel('Signing secret').fill(SECRET);
    await page.getByLabel('Only this Activity (optional)').fill('http://example.com/c');
    await page.getByRole('dialog').getByLabel('Statements', { exact: true }).first().click({ timeout: 5_000 });
    await page.getByRole('option', { name: 'Only those not voided' }).click({ timeout: 5_000 });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const table = page.getByRole('table', { name: 'Destinations' });
    await table.getByText('only http://example.com/c, accepted').waitFor();
    const before = receiver.ids.length;
    const id = await send('alan@example.com');
    await waitFor(() => receiver.ids.length > before, 'the statement through the filter');
    expect(receiver.ids.at(-1)).toBe(id);
  });

  it('raised no error in the page', () => {
    expect(h.pageErrors).toEqual([]);
  });
});
