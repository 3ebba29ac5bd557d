/**
 * End-to-end harness: a real Lore service in this process (port 0, temp data dir, known admin
 * token) serving the built console at /admin/, and Debian's Chromium driven by playwright-core.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { buildIfStale } from '../../scripts/build-if-stale.mjs';
import type { ServiceConfig } from '../../src-server/service/config';
import { startService, type RunningService } from '../../src-server/service/service';

export const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
export const SCREENS_DIR = process.env['LORE_SCREENS_DIR'] ?? '/tmp/lore-screens';


/** Debian's Chromium (CI installs it); undefined when this machine has none. */
export function findChromium(): string | undefined {
  const candidates = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);
  return candidates.find((path) => existsSync(path));
}

/** Builds main, preload and renderer into out/ (the service serves out/renderer at /admin/) when their sources changed. */
export async function buildConsole(): Promise<void> {
  await buildIfStale({ log: () => {} });
}

export interface ConsoleHarness {
  service: RunningService;
  context: BrowserContext;
  page: Page;
  /** Browser-side errors seen so far (uncaught exceptions, console errors). */
  pageErrors: string[];
  close(): Promise<void>;
}

/** What the browser is given beyond the harness's defaults. */
export interface BrowserOptions {
  /**
   * Host names Chromium resolves to 127.0.0.1 (--host-resolver-rules), to open the console as from
   * another machine: http://lrs.test:<port>/admin/ is no secure context, unlike 127.0.0.1. The
   * service must then listen beyond loopback (`host: '0.0.0.0'`) for its admin guard to answer them.
   */
  hostNames?: string[];
}

/** `config`: settings of the service beyond the harness's own (scheduled backups, say); `browser`: see BrowserOptions. */
export async function startConsoleHarness(executablePath: string, config: Partial<ServiceConfig> = {}, browser: BrowserOptions = {}): Promise<ConsoleHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-e2e-data-'));
  const userDataDir = mkdtempSync(join(tmpdir(), 'lore-e2e-chromium-'));
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN, ...config });
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        ...(browser.hostNames?.length ? [`--host-resolver-rules=${browser.hostNames.map((name) => `MAP ${name} 127.0.0.1`).join(', ')}`] : []),
      ],
      viewport: { width: 1360, height: 900 },
    });
    // Only the service's own origin: Chromium grants no clipboard permission to an insecure one
    // (hostNames), whose pages copy with execCommand instead; a test reads the clipboard from here.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    mkdirSync(SCREENS_DIR, { recursive: true });
    const opened = context;
    return {
      service,
      context: opened,
      page,
      pageErrors,
      close: async () => {
        await opened.close();
        await service.stop();
        rmSync(dataDir, { recursive: true, force: true });
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await context?.close();
    await service.stop();
    throw error;
  }
}

export const XAPI_HEADERS = { 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' };

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

export function statement(email: string, name: string, activity: string, activityName: string, scaled?: number) {
  return {
    actor: { mbox: `mailto:${email}`, name },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { id: activity, definition: { name: { 'en-US': activityName } } },
    ...(scaled === undefined ? {} : { result: { score: { scaled } } }),
  };
}

/** An admin API request to `serviceUrl` with the harness's admin token; a body is sent as JSON. */
export function adminRequest(serviceUrl: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${serviceUrl}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Opens the web console of `serviceUrl` and signs in with the harness's admin token; resolves once `shown` is on screen. */
export async function signIn(page: Page, serviceUrl: string, shown: string): Promise<void> {
  await page.goto(`${serviceUrl}/admin/`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(shown).first().waitFor();
}
