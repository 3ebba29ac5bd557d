/**
 * A light page: a first visit of /admin/ in real Chromium (empty cache) transfers at most 350 KB
 * before the sign-in form is on screen: the console is minified, split per screen (the other
 * screens' code is not fetched) and served brotli- or gzip-compressed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, findChromium, startConsoleHarness, type ConsoleHarness } from './console-harness';

const chromiumPath = findChromium();

/** The budget of a first visit: index.html and everything it loads until the page is idle. */
const FIRST_VISIT_BUDGET = 350 * 1024;

interface Transfer {
  url: string;
  status: number;
  contentEncoding: string;
  acceptEncoding: string;
  /** Bytes on the wire: headers and the (compressed) body. */
  bytes: number;
}

describe.skipIf(!chromiumPath)('a first visit of the web console', () => {
  let h: ConsoleHarness;

  beforeAll(async () => {
    await buildConsole();
    h = await startConsoleHarness(chromiumPath!);
  }, 150_000);

  afterAll(async () => {
    await h?.close();
  });

  it(`renders the sign-in form after at most ${FIRST_VISIT_BUDGET / 1024} KB on the wire, compressed`, async () => {
    const { page, context } = h;
    const cdp = await context.newCDPSession(page);
    const urls = new Map<string, string>();
    /** The Accept-Encoding Chromium really sent (added below the page's view of the request). */
    const offered = new Map<string, string>();
    const responses = new Map<string, { status: number; contentEncoding: string }>();
    const transfers: Transfer[] = [];
    const header = (headers: Record<string, unknown>, name: string) => String(Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? '');
    cdp.on('Network.requestWillBeSent', ({ requestId, request }) => urls.set(requestId, request.url));
    cdp.on('Network.requestWillBeSentExtraInfo', ({ requestId, headers }) => offered.set(requestId, header(headers, 'accept-encoding')));
    cdp.on('Network.responseReceived', ({ requestId, response }) => {
      responses.set(requestId, { status: response.status, contentEncoding: header(response.headers, 'content-encoding') });
    });
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
      const response = responses.get(requestId);
      transfers.push({
        url: urls.get(requestId) ?? '?',
        status: response?.status ?? 0,
        contentEncoding: response?.contentEncoding ?? '',
        acceptEncoding: offered.get(requestId) ?? '',
        bytes: encodedDataLength,
      });
    });
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });

    await page.goto(`${h.service.url}/admin/`);
    await page.getByLabel('Admin token').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    await cdp.detach();

    const total = transfers.reduce((sum, t) => sum + t.bytes, 0);
    console.info(
      [
        `first visit of /admin/: ${transfers.length} responses, ${(total / 1024).toFixed(1)} KB transferred`,
        ...transfers.map((t) => `  ${(t.bytes / 1024).toFixed(1).padStart(7)} KB  ${t.status} ${t.contentEncoding || 'identity'} (offered ${t.acceptEncoding})  ${new URL(t.url, h.service.url).pathname}`),
      ].join('\n'),
    );

    expect(h.pageErrors).toEqual([]);
    const assets = transfers.filter((t) => new URL(t.url, h.service.url).pathname.startsWith('/admin/assets/'));
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset.status, asset.url).toBe(200);
      // Chromium offers brotli to localhost; the service answers with it.
      expect(asset.acceptEncoding, asset.url).toMatch(/\bbr\b/);
      expect(asset.contentEncoding, asset.url).toBe('br');
    }
    // The console behind the sign-in (its shell and screens) and the desktop app's root stay on the service.
    expect(assets.map((t) => new URL(t.url).pathname).filter((name) => /\/(App|DesktopRoot|\w+Screen)-/.test(name))).toEqual([]);
    expect(total).toBeLessThanOrEqual(FIRST_VISIT_BUDGET);
  });
});
