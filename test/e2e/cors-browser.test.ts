/**
 * Content in a browser calls the LRS from another origin (an LMS, a CDN, a course opened from a
 * file server) with fetch. Every answer, refusals included, must reach that content with its real
 * status and message: a missing CORS header shows up there only as "Failed to fetch". Real
 * Chromium, a real listening service, a course page served by a second server, and a host name
 * that is not loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startService, type RunningService } from '../../src-server/service/service';
import { ADMIN_TOKEN, findChromium } from './console-harness';

const chromiumPath = findChromium();
if (!chromiumPath) console.warn('test/e2e skipped: no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)');

interface Answer {
  status: number;
  message?: string;
  body?: unknown;
  failed?: string;
}

describe.skipIf(!chromiumPath)('browser content on another origin', () => {
  let service: RunningService;
  let dataDir: string;
  let coursePages: Server;
  let browser: Browser;
  let page: Page;
  let endpoint = '';
  const key = { id: '', secret: '' };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'lore-cors-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN });
    const admin = (path: string, body: unknown) =>
      fetch(`${service.url}/admin/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((response) => response.json() as Promise<Record<string, string>>);
    await admin('/stores', { slug: 'course', name: 'Course', environment: 'test' });
    const created = await admin('/stores/course/keys', { name: 'browser content' });
    key.id = created['id']!;
    key.secret = created['secret']!;
    // The endpoint as a course would hold it: a host name that is not loopback, on the service's port.
    endpoint = `http://lrs.test:${service.port}/course/xAPI/`;

    coursePages = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>Course</title><p>A course page');
    });
    await new Promise<void>((resolve) => coursePages.listen(0, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--host-resolver-rules=MAP lrs.test 127.0.0.1, MAP course.test 127.0.0.1'],
    });
    page = await browser.newPage();
    await page.goto(`http://course.test:${(coursePages.address() as AddressInfo).port}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => coursePages?.close(resolve));
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** fetch from the course page, as content does; the answer's status and error message, or the browser's failure. */
  const call = (path: string, init: { method?: string; auth?: string | null; body?: string; version?: string }): Promise<Answer> =>
    page.evaluate(
      `(async () => {
        const init = ${JSON.stringify(init)};
        const headers = { 'X-Experience-API-Version': init.version ?? '1.0.3', 'Content-Type': 'application/json' };
        if (init.auth) headers.Authorization = init.auth;
        try {
          const response = await fetch(${JSON.stringify(endpoint)} + ${JSON.stringify(path)}, { method: init.method ?? 'GET', headers, body: init.body });
          const text = await response.text();
          let body; try { body = JSON.parse(text); } catch { body = text; }
          return { status: response.status, message: body && body.error ? body.error.message : undefined, body };
        } catch (error) {
          return { status: 0, failed: String(error) };
        }
      })()`,
    ) as Promise<Answer>;
  const basic = () => `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`;
  const statement = JSON.stringify({
    actor: { mbox: 'mailto:learner@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } },
    object: { id: 'http://example.com/course/page-1' },
  });

  it('stores a statement and reads the 200 with its id', async () => {
    const answer = await call('statements', { method: 'POST', auth: basic(), body: statement });
    expect(answer.failed).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });

  it('reads the 401 and which part of the credentials failed', async () => {
    const wrong = `Basic ${Buffer.from(`${key.id}:not-the-secret`).toString('base64')}`;
    const answer = await call('statements', { method: 'POST', auth: wrong, body: statement });
    expect(answer.failed).toBeUndefined();
    expect(answer.status).toBe(401);
    expect(answer.message).toContain(`The secret does not match API key "${key.id}"`);
  });

  it('reads the 404 of an endpoint typed wrong, naming the Store and its resources', async () => {
    const answer = await call('statement', { auth: basic() });
    expect(answer.failed).toBeUndefined();
    expect(answer.status).toBe(404);
    expect(answer.message).toContain('Store "course" has no xAPI resource "statement"');
  });

  it('reads the 413 of a batch over the limit', async () => {
    const batch = `[${Array.from({ length: 1001 }, () => statement).join(',')}]`;
    const answer = await call('statements', { method: 'POST', auth: basic(), body: batch });
    expect(answer.failed).toBeUndefined();
    expect(answer.status).toBe(413);
    expect(answer.message).toMatch(/1,001/);
  });

  it('reads the 400 of a missing version header and of a body that is not JSON', async () => {
    const version = await call('statements', { auth: basic(), version: '' });
    expect(version.failed).toBeUndefined();
    expect(version.status).toBe(400);
    expect(version.message).toContain('X-Experience-API-Version');
    const json = await call('statements', { method: 'POST', auth: basic(), body: '{"actor": ' });
    expect(json.status).toBe(400);
    expect(json.message).toMatch(/^The body is not valid JSON: at line 1, column 11/);
  });

  it('works through an endpoint joined with a doubled slash', async () => {
    const answer = await call('/statements?limit=1', { auth: basic() });
    expect(answer.failed).toBeUndefined();
    expect(answer.status).toBe(200);
  });
});
