/**
 * The console in real Chromium against a real service: the path a first-time user takes, from a
 * new Store to statements in the Explorer, and key rotation and revocation seen from content.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { buildAdminRequest, type AdminInput, type AdminOperationName } from '../../src-server/admin/contract';
import { ADMIN_TOKEN, basic, buildConsole, findChromium, SCREENS_DIR, startConsoleHarness, statement, XAPI_HEADERS, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();
if (!chromiumPath) console.warn('test/e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)');

const MODULE_1 = 'http://example.com/courses/module-1';
const MODULE_2 = 'http://example.com/courses/module-2';

describe.skipIf(!chromiumPath)('the admin console in Chromium', () => {
  let h: ConsoleHarness;
  let page: Page;
  const key = { id: '', secret: '', token: '' };
  let endpoint = '';

  const send = (body: unknown, authorization = basic(key.id, key.secret)) =>
    fetch(`${endpoint}statements`, { method: 'POST', headers: { ...XAPI_HEADERS, Authorization: authorization }, body: JSON.stringify(body) });
  const go = async (hash: string) => {
    // Expressions run in the page (this file is type-checked without DOM types).
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  };
  const dialog = () => page.getByRole('dialog');

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    page = h.page;
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('refuses a wrong admin token and signs in with the right one', async () => {
    await page.goto(`${h.service.url}/admin/`);
    await page.screenshot({ path: `${SCREENS_DIR}/signin-light.png`, animations: 'disabled' });
    await page.getByLabel('Admin token').fill('not-the-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The service did not accept this admin token.').waitFor();
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'No Stores yet' }).waitFor();
    await expect(page.getByTestId('deployment').textContent()).resolves.toContain(new URL(h.service.url).host);
  });

  it('creates a Store and shows its endpoint', async () => {
    await page.getByRole('button', { name: 'Create your first Store' }).click();
    await dialog().getByLabel('Name').fill('Onboarding course');
    await dialog().getByLabel('Slug').fill('Admin'); // reserved: the service names the field
    await dialog().getByRole('button', { name: 'Create Store' }).click();
    await dialog().getByText(/reserved/).waitFor();
    await dialog().getByLabel('Slug').fill('onboarding');
    await dialog().getByRole('button', { name: 'Create Store' }).click();
    const row = page.locator('tr[data-store="onboarding"]');
    await row.waitFor();
    endpoint = `${h.service.url}/onboarding/xAPI/`;
    await expect(row.textContent()).resolves.toContain(endpoint);
    await expect(row.textContent()).resolves.toContain('test');
  });

  it('creates an API key, shows its secret once and copies it', async () => {
    await go('#/keys/onboarding');
    await page.getByRole('button', { name: 'Create the first key' }).click();
    await dialog().getByLabel('Name').fill('Storyline export');
    await dialog().getByRole('button', { name: 'Create key' }).click();
    const created = page.getByRole('dialog', { name: 'API key created' });
    await created.waitFor();
    key.id = (await created.locator('[data-copy-value="Key id"]').textContent()) ?? '';
    key.secret = (await created.locator('[data-copy-value="Secret"]').textContent()) ?? '';
    key.token = (await created.locator('[data-copy-value="Bearer token"]').textContent()) ?? '';
    expect(key.id).toMatch(/^lore_test_/);
    await expect(created.locator('[data-copy-value="curl command"]').textContent()).resolves.toContain(`Bearer ${key.token}`);
    await created.getByRole('button', { name: 'Copy secret' }).click();
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key.secret);
    await page.screenshot({ path: `${SCREENS_DIR}/new-key-light.png`, animations: 'disabled' });
    await created.getByRole('button', { name: 'I have copied it' }).click();
    await page.locator(`tr[data-key="${key.id}"]`).waitFor();
  });

  it('shows valid and invalid statements sent with the key in the Explorer within 2 s, with their status', async () => {
    await go('#/explorer/onboarding');
    await page.getByRole('heading', { name: 'No statements yet' }).waitFor();
    await page.getByTestId('live-indicator').getByText('Live').waitFor();

    const started = Date.now();
    const accepted = await send(statement('ada@example.com', 'Ada', MODULE_1, 'Module 1', 0.9));
    expect(accepted.status).toBe(200);
    const rejected = await send({ ...statement('bob@example.com', 'Bob', MODULE_2, 'Module 2'), actor: { mbox: 'bob@example.com', name: 'Bob' } });
    expect(rejected.status).toBe(400);
    const byBearer = await send(statement('bob@example.com', 'Bob', MODULE_2, 'Module 2'), `Bearer ${key.token}`);
    expect(byBearer.status).toBe(200);

    await page.locator('tr[data-status]').nth(2).waitFor({ timeout: 2000 });
    expect(Date.now() - started).toBeLessThan(2000 + 500);
    expect(await page.locator('tr[data-status="accepted"]').allTextContents()).toContainEqual(expect.stringContaining("Ada completed 'Module 1' — score 0.9"));
    await expect(page.locator('tr[data-status="rejected"]').count()).resolves.toBe(1);
    await expect(page.locator('tr[data-status="accepted"]').count()).resolves.toBe(2);
  });

  it('filters by actor and by activity', async () => {
    await page.getByRole('combobox', { name: 'Actor' }).fill('ada@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('tr[data-status]').count()).toBe(1);
    await expect(page.locator('tr[data-status]').textContent()).resolves.toContain('Ada completed');

    await page.getByRole('combobox', { name: 'Actor' }).fill('');
    await page.getByRole('combobox', { name: 'Activity' }).fill(MODULE_2);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('tr[data-status]').count()).toBe(2);
    for (const text of await page.locator('tr[data-status]').allTextContents()) expect(text).toContain('Bob');

    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => page.locator('tr[data-status]').count()).toBe(3);
  });

  it('opens a rejected statement with its field highlighted and the error in plain words', async () => {
    await page.locator('tr[data-status="rejected"]').getByTestId('statement-open').click();
    const drawer = page.getByRole('dialog');
    await drawer.getByTestId('rejection-reason').waitFor();
    await expect(drawer.getByTestId('rejection-field').textContent()).resolves.toBe('actor.mbox');
    const mark = drawer.locator('mark[data-field="actor.mbox"]');
    await expect(mark.textContent()).resolves.toBe('"mbox": "bob@example.com"');
    await expect(drawer.getByTestId('rejection-reason').textContent()).resolves.toMatch(/mailto/i);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
  });

  it('moves the ingestion chart as statements arrive', async () => {
    await go('#/ingestion');
    const chart = page.getByTestId('ingestion-chart');
    await chart.waitFor();
    const before = Number(await chart.getAttribute('data-accepted'));
    expect(before).toBe(2);
    expect(Number(await chart.getAttribute('data-rejected'))).toBe(1);
    expect((await send(statement('cy@example.com', 'Cy', MODULE_1, 'Module 1'))).status).toBe(200);
    await expect.poll(async () => Number(await chart.getAttribute('data-accepted')), { timeout: 3000 }).toBe(before + 1);
  });

  it('rotates a key, shows how long the old one stays valid, and a revoked key is refused with 401', async () => {
    await go('#/keys/onboarding');
    await page.getByRole('button', { name: 'Rotate Storyline export' }).click();
    await dialog().getByRole('button', { name: 'Rotate key' }).click();
    const replaced = page.getByRole('dialog', { name: 'Replacement key created' });
    await replaced.waitFor();
    await expect(replaced.getByTestId('old-key-validity').textContent()).resolves.toMatch(/6 days 23 hours left|7 days left/);
    const replacement = {
      id: (await replaced.locator('[data-copy-value="Key id"]').textContent()) ?? '',
      secret: (await replaced.locator('[data-copy-value="Secret"]').textContent()) ?? '',
    };
    await replaced.getByRole('button', { name: 'I have copied it' }).click();
    // The old key still works during its grace period; so does the replacement.
    expect((await send(statement('ada@example.com', 'Ada', MODULE_1, 'Module 1'))).status).toBe(200);
    expect((await send(statement('ada@example.com', 'Ada', MODULE_1, 'Module 1'), basic(replacement.id, replacement.secret))).status).toBe(200);

    await page.locator(`tr[data-key="${key.id}"]`).getByRole('button', { name: /^Revoke/ }).click();
    await dialog().getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText(`${key.id} is revoked`).waitFor();
    // The notice comes with the answer; the table shows the new status once its reload arrives.
    await page.locator(`tr[data-key="${key.id}"] [data-status="revoked"]`).waitFor({ timeout: 3000 });
    const refused = await send(statement('ada@example.com', 'Ada', MODULE_1, 'Module 1'));
    expect(refused.status).toBe(401);
    expect((await send(statement('ada@example.com', 'Ada', MODULE_1, 'Module 1'), basic(replacement.id, replacement.secret))).status).toBe(200);
  });

  it('sends a test statement from the Stores screen', async () => {
    await go('#/stores');
    await page.locator('tr[data-store="onboarding"]').getByRole('button', { name: 'Send a test statement' }).click();
    await page.getByText(/Test statement [0-9a-f-]{36} sent to onboarding/).waitFor();
  });

  it('reaches the screens with the keyboard alone', async () => {
    await go('#/stores');
    await page.locator('body').focus();
    let label = '';
    for (let i = 0; i < 12 && !label.startsWith('Statement Explorer'); i++) {
      await page.keyboard.press('Tab');
      label = await page.evaluate<string>("document.activeElement?.textContent ?? ''");
    }
    expect(label).toMatch(/^Statement Explorer/);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Statement Explorer' }).waitFor();
  });

  it('shows the database capacity and downloads a backup that is an SQLite file', async () => {
    await go('#/connection');
    await page.getByRole('heading', { name: 'Database capacity' }).waitFor();
    await expect.poll(() => page.getByTestId('capacity-card').innerText()).toMatch(/ of [\d.]+ [KMG]?B \(/);
    const download = page.waitForEvent('download', { timeout: 15_000 });
    await page.getByRole('button', { name: 'Download backup' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.sqlite3?$/);
    const stream = await file.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    await page.getByRole('status').filter({ hasText: 'Backup saved' }).waitFor();
  });

  it('keeps one live stream for the window, whichever screens it shows, and one cache of its reads', async () => {
    // Every screen listens (Stores, Explorer, Ingestion, Connection), each for its own Store or all;
    // every screen but Connection reads the Stores list.
    const streams: string[] = [];
    const storeLists: string[] = [];
    const onRequest = (request: { url(): string; method(): string }) => {
      const path = new URL(request.url()).pathname;
      if (path === '/admin/api/events') streams.push(path);
      if (path === '/admin/api/stores' && request.method() === 'GET') storeLists.push(path);
    };
    page.on('request', onRequest);
    const started = Date.now();
    try {
      for (const hash of ['#/stores', '#/explorer/onboarding', '#/ingestion', '#/connection', '#/explorer/onboarding', '#/stores', '#/explorer/onboarding']) {
        await go(hash);
        await page.locator('main h2').first().waitFor();
      }
      // The stream opened before stays open (none here), or one was opened once.
      expect(streams.length).toBeLessThanOrEqual(1);
      // An answer is fresh for 5 s (api/client-context.tsx): a screen opened meanwhile shows it
      // without asking again. Without the shared cache, each of the six screens asked.
      expect(storeLists.length).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / 5_000));
      // And it still brings what arrives to the screen shown.
      // A key of its own: the one the earlier tests used is revoked by now.
      const created = await fetch(`${h.service.url}/admin/api/stores/onboarding/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'live stream check' }),
      });
      const live = (await created.json()) as { id: string; secret: string };
      expect((await send(statement('livia@example.com', 'Livia Stream', MODULE_1, 'Module 1'), basic(live.id, live.secret))).status).toBe(200);
      await page.locator('tr[data-status]').filter({ hasText: 'Livia Stream' }).first().waitFor({ timeout: 5_000 });
    } finally {
      page.off('request', onRequest);
    }
  });

  it('shows every screen in light and dark (screenshots for review)', async () => {
    const screens = ['#/stores', '#/explorer/onboarding', '#/ingestion', '#/keys/onboarding', '#/connection'];
    for (const scheme of ['Light', 'Dark'] as const) {
      await page.locator('[aria-label="Colour scheme"] label', { hasText: scheme }).click();
      await expect.poll(() => page.evaluate("document.documentElement.getAttribute('data-mantine-color-scheme')")).toBe(scheme.toLowerCase());
      for (const hash of screens) {
        await go(hash);
        await page.locator('main h2').first().waitFor();
        await page.getByRole('status').filter({ hasText: /Loading|Searching|Asking/ }).waitFor({ state: 'detached' }).catch(() => undefined);
        const name = hash.replace(/^#\//, '').split('/')[0];
        await page.screenshot({ path: `${SCREENS_DIR}/${name}-${scheme.toLowerCase()}.png`, fullPage: true, animations: 'disabled' });
        if (name === 'explorer') {
          await page.locator('tr[data-status="rejected"]').getByTestId('statement-open').click();
          await page.locator('mark[data-field="actor.mbox"]').waitFor();
          await page.screenshot({ path: `${SCREENS_DIR}/explorer-rejected-${scheme.toLowerCase()}.png`, animations: 'disabled' });
          await page.keyboard.press('Escape');
          await page.getByRole('dialog').waitFor({ state: 'hidden' });
        }
      }
    }
    // The sign-in screen, dark (the choice is remembered across signing out).
    await go('#/connection');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin token').waitFor();
    await page.screenshot({ path: `${SCREENS_DIR}/signin-dark.png`, animations: 'disabled' });
  });

  it('in the desktop app, manages the local service through the bridge (a stand-in for preload)', async () => {
    const desktop = await h.context.newPage();
    desktop.on('pageerror', (error) => h.pageErrors.push(error.message));
    // The stand-in main process: admin calls are built by the contract and sent with the token,
    // as src-main forwards them; the desktop operations answer a fixed state.
    await desktop.exposeFunction('loreAdminForward', async (name: AdminOperationName, input: AdminInput<AdminOperationName>) => {
      const request = buildAdminRequest(name, input);
      const response = await fetch(`${h.service.url}/admin/api${request.path}`, {
        method: request.method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(request.body ? { 'content-type': 'application/json' } : {}) },
        ...(request.body ? { body: JSON.stringify(request.body) } : {}),
      });
      const text = await response.text();
      return response.ok ? { ok: true, value: text ? JSON.parse(text) : undefined } : { ok: false, error: JSON.parse(text).error };
    });
    const port = new URL(h.service.url).port;
    await desktop.addInitScript(`(() => {
      const running = { state: 'running', url: ${JSON.stringify(h.service.url)}, restarts: 0 };
      const connection = { kind: 'local', url: ${JSON.stringify(h.service.url)}, label: 'Local service' };
      const state = {
        connection,
        profiles: [{ id: 'local', kind: 'local', label: 'Local service', url: connection.url, active: true },
                   { id: 'r1', kind: 'remote', label: 'Academy (production)', url: 'https://lrs.example.org', active: false }],
        local: { settings: { port: ${port}, host: '127.0.0.1' }, applied: { port: ${port}, host: '127.0.0.1' }, restartNeeded: false,
                 dataDir: '/home/ada/.config/Lore LRS/data', status: running },
        preferences: { keepServiceRunning: true },
        secureStorage: true,
      };
      window.lore = {
        serviceStatus: async () => running,
        onServiceStatus: () => () => {},
        admin: (name, input) => window.loreAdminForward(name, input),
        onAdminEvent: () => () => {},
        onAdminRefusal: () => () => {},
        adminStream: async () => true,
        onAdminStream: () => () => {},
        connection: async () => connection,
        desktop: async () => ({ ok: true, value: state }),
        onConnection: () => () => {},
      };
    })()`);
    await desktop.goto(`${h.service.url}/admin/#/stores`);
    await desktop.locator('tr[data-store="onboarding"]').waitFor();
    await expect(desktop.getByTestId('deployment').textContent()).resolves.toBe('Local: Local service');
    await desktop.getByText('Service running').first().waitFor();
    await desktop.evaluate(`window.location.hash = '#/connection'`);
    await desktop.getByRole('heading', { name: 'Local service' }).waitFor();
    await desktop.getByText('Academy (production)').waitFor();
    for (const scheme of ['Light', 'Dark'] as const) {
      await desktop.locator('[aria-label="Colour scheme"] label', { hasText: scheme }).click();
      await desktop.screenshot({ path: `${SCREENS_DIR}/connection-desktop-${scheme.toLowerCase()}.png`, fullPage: true, animations: 'disabled' });
    }
    await desktop.close();
  });

  it('raised no error in the page', () => {
    // The refused sign-in (401) and the reserved slug (400) were provoked on purpose; the browser logs those requests.
    expect(h.pageErrors.filter((e) => !/status of (400|401)/.test(e))).toEqual([]);
  });
});
