/**
 * The desktop app loads the built console from files (file://…/out/renderer/index.html, see
 * src-main/window.ts), not from the service: each screen's chunk, fetched when the screen is
 * first shown, must resolve next to the page on disk (the renderer is built with relative URLs).
 * Chromium stands in for Electron's window, with file access granted to the page as Electron
 * grants it to its own files; a stand-in bridge answers every admin call "unreachable", so the
 * screens render their error states without a service.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, findChromium } from './console-harness';

const chromiumPath = findChromium();
const INDEX = pathToFileURL(fileURLToPath(new URL('../../out/renderer/index.html', import.meta.url))).href;

const BRIDGE = `(() => {
  const unreachable = { ok: false, error: { status: 0, code: 'unreachable', message: 'No service in this test' } };
  const stopped = { state: 'stopped' };
  window.lore = {
    serviceStatus: async () => stopped,
    onServiceStatus: () => () => {},
    admin: async () => unreachable,
    onAdminEvent: () => () => {},
    onAdminRefusal: () => () => {},
    adminStream: async () => false,
    onAdminStream: () => () => {},
    connection: async () => ({ kind: 'local', url: 'http://127.0.0.1:8411', label: 'Local service' }),
    desktop: async () => unreachable,
    onConnection: () => () => {},
  };
})()`;

describe.skipIf(!chromiumPath)('the desktop console from files', () => {
  let browser: Browser;

  beforeAll(async () => {
    await buildConsole();
    browser = await chromium.launch({
      executablePath: chromiumPath!,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--allow-file-access-from-files'],
    });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('fetches each screen from disk when it is first shown', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    const loaded: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('requestfailed', (request) => errors.push(`${request.url()}: ${request.failure()?.errorText ?? 'failed'}`));
    page.on('requestfinished', (request) => loaded.push(request.url()));
    await page.addInitScript(BRIDGE);
    await page.goto(`${INDEX}#/stores`);
    await page.getByRole('navigation', { name: 'Screens' }).waitFor();

    for (const [hash, chunk] of [
      ['#/stores', 'StoresScreen'],
      ['#/explorer', 'ExplorerScreen'],
      ['#/ingestion', 'IngestionScreen'],
      ['#/bench', 'BenchScreen'],
      ['#/keys', 'ApiKeysScreen'],
      ['#/connection', 'ConnectionScreen'],
    ] as const) {
      await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
      // The screen's own answer to the unreachable service: its code ran.
      await page.locator('main [role="alert"]').first().waitFor();
      const from = loaded.filter((url) => url.includes(`/assets/${chunk}-`));
      expect(from, hash).toHaveLength(1);
      expect(from[0], hash).toMatch(/^file:\/\/.*\/out\/renderer\/assets\//);
      await expect(page.getByText('This part of the console did not load').count(), hash).resolves.toBe(0);
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
