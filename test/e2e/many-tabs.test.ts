/**
 * The console kept open as people keep it, in real Chromium: ten tabs of one service load and
 * stay live on one stream (the browser's SharedWorker): the Explorer, the Stores' counts and the
 * keys' "Last used" follow what arrives; a tab's admin requests never wait behind streams; and a
 * connection cut for a few seconds (a TCP relay between Chromium and the service,
 * closed and opened again) shows "Reconnecting…" and then what arrived meanwhile, without waiting
 * for the next statement.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, buildConsole, findChromium, startConsoleHarness, statement, XAPI_HEADERS, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

/** A TCP relay to the service that can drop every connection and refuse new ones, then come back on the same port. */
async function relayTo(port: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let relayPort = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(port, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => socket.destroy());
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(relayPort, '127.0.0.1', () => {
        relayPort = (server!.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${relayPort}`;
    },
    /** The network drops: every connection cut, nothing accepted until `restore`. */
    cut: () =>
      new Promise<void>((resolve) => {
        server!.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    restore: listen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server?.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}

describe.skipIf(!chromiumPath)('a console kept open in Chromium', () => {
  let h: ConsoleHarness;
  let basicAuth = '';
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${h.service.url}/admin/api${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...init.headers } });
  const send = (name: string) =>
    fetch(`${h.service.url}/demo/xAPI/statements`, {
      method: 'POST',
      headers: { ...XAPI_HEADERS, Authorization: basicAuth },
      body: JSON.stringify(statement(`${name.toLowerCase()}@example.com`, name, 'http://example.com/courses/tabs', 'Tabs')),
    });
  const liveStreams = async () => ((await (await admin('/status')).json()) as { liveStreams: number }).liveStreams;

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
    expect((await admin('/stores', { method: 'POST', body: JSON.stringify({ slug: 'demo', name: 'Demo' }) })).status).toBe(201);
    basicAuth = `Basic ${((await (await admin('/stores/demo/keys', { method: 'POST', body: JSON.stringify({ name: 'tabs' }) })).json()) as { basic: string }).basic}`;
    // Each tab signed in (the token is kept per tab), as after opening the console in a new tab.
    await h.context.addInitScript(`sessionStorage.setItem('lore.adminToken', ${JSON.stringify(ADMIN_TOKEN)})`);
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it('loads ten tabs that all stay live on one stream, and their admin requests never wait', { timeout: 120_000 }, async () => {
    const tabs: Page[] = [h.page];
    for (let i = 1; i < 10; i++) tabs.push(await h.context.newPage());
    const screens = ['#/explorer/demo', '#/stores', '#/ingestion', '#/keys/demo', '#/connection'];
    for (const [i, tab] of tabs.entries()) {
      await tab.goto(`${h.service.url}/admin/${screens[i % screens.length]}`);
      await tab.getByRole('navigation').waitFor({ timeout: 15_000 });
    }
    const explorers = tabs.filter((_tab, i) => i % screens.length === 0);
    for (const tab of explorers) await tab.getByTestId('live-indicator').getByText('Live').waitFor({ timeout: 10_000 });
    expect(await liveStreams()).toBe(1);

    // An eleventh tab: its first admin request answers at once, the streams leave it room.
    const eleventh = await h.context.newPage();
    const started = Date.now();
    await eleventh.goto(`${h.service.url}/admin/#/stores`);
    await eleventh.locator('tr[data-store="demo"]').waitFor({ timeout: 10_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    tabs.push(eleventh);

    // The keys tab: the key was never used, nor does it expire.
    const keyRow = tabs[3]!.locator('tr[data-key]').first();
    await expect.poll(() => keyRow.getByText('never', { exact: true }).count(), { timeout: 5_000 }).toBe(2);

    // Every Explorer tab shows a new statement; the Stores tabs their count; the keys tab "Last used".
    expect((await send('Ada')).status).toBe(200);
    for (const tab of explorers) await tab.locator('tr[data-status="accepted"]').first().waitFor({ timeout: 5_000 });
    await tabs[1]!.locator('tr[data-store="demo"]').getByText('1', { exact: true }).first().waitFor({ timeout: 5_000 });
    await expect.poll(() => keyRow.getByText('never', { exact: true }).count(), { timeout: 5_000 }).toBe(1);

    // The tabs close one by one (the first Explorer among them); the others stay live on the one stream.
    for (const tab of tabs.splice(0, 5)) await tab.close();
    expect((await send('Bob')).status).toBe(200);
    const remaining = tabs.find((tab) => !tab.isClosed() && tab.url().includes('#/explorer/demo'))!;
    await remaining.locator('tr[data-status="accepted"]').nth(1).waitFor({ timeout: 5_000 });
    expect(await liveStreams()).toBe(1);
    for (const tab of tabs) await tab.close();
    await expect.poll(liveStreams, { timeout: 15_000 }).toBe(0);
    h.page = await h.context.newPage();
  });

  it('shows Reconnecting… while the connection is down, then what arrived meanwhile', { timeout: 60_000 }, async () => {
    const relay = await relayTo(new URL(h.service.url).port === '' ? 80 : Number(new URL(h.service.url).port));
    try {
      const page = h.page;
      expect((await send('Dan')).status).toBe(200);
      await page.goto(`${relay.url}/admin/#/explorer/demo`);
      const badge = page.getByTestId('live-indicator');
      await badge.getByText('Live').waitFor({ timeout: 10_000 });
      // Counted once the first page is on screen: the badge can say Live before the rows arrive.
      await page.locator('tr[data-status]').filter({ hasText: 'Dan' }).first().waitFor({ timeout: 10_000 });
      const before = await page.locator('tr[data-status]').count();

      await relay.cut();
      await badge.getByText('Reconnecting…').waitFor({ timeout: 10_000 });
      expect((await send('Cleo')).status).toBe(200); // straight to the service: the console cannot see it
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await relay.restore();

      // Back up: the Explorer shows Cleo's statement though nothing arrived after it.
      await badge.getByText('Live').waitFor({ timeout: 20_000 });
      await expect.poll(() => page.locator('tr[data-status]').count(), { timeout: 5_000 }).toBe(before + 1);
      await expect(page.locator('tr[data-status]').first().textContent()).resolves.toContain('Cleo');
    } finally {
      await relay.close();
    }
  });
});
