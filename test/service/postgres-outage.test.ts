/**
 * The service on PostgreSQL when the database goes away: every request answers 503 with
 * Retry-After (never 500, never a hang past the statement timeout), nothing acknowledged is lost,
 * and the service works again by itself once the database is back. A server of its own, stopped
 * and started again on the same data and port, as an outage would.
 *
 * The outage lasts LORE_TEST_OUTAGE_SECONDS (default 3; the 30 s: set it to 30).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../src-server/service/service';
import type { RunningService } from '../../src-server/service/service';
import { startTestPostgres } from '../postgres/test-server';
import type { TestPostgres } from '../postgres/test-server';

const ADMIN_TOKEN = 'outage-admin-token-0123456789';
const OUTAGE_MS = Number(process.env['LORE_TEST_OUTAGE_SECONDS'] ?? 3) * 1000;
const STATEMENT_TIMEOUT_MS = 2_000;

let server: TestPostgres;
let service: RunningService;
let dataDir: string;
let basic: string;

function statement(): Record<string, unknown> {
  return { actor: { mbox: 'mailto:learner@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/course/1' } };
}

async function xapi(method: string, path: string, body?: unknown): Promise<{ status: number; retryAfter: string | null; json: unknown; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${service.url}/outage/xAPI/${path}`, {
    method,
    headers: { authorization: `Basic ${basic}`, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), json: text ? JSON.parse(text) : null, ms: performance.now() - started };
}

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${service.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  server = await startTestPostgres();
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query('CREATE DATABASE lore');
  await client.end();
  const url = new URL(server.url);
  url.pathname = '/lore';
  dataDir = mkdtempSync(join(tmpdir(), 'lore-outage-'));
  service = await startService({
    port: 0,
    host: '127.0.0.1',
    dataDir,
    adminToken: ADMIN_TOKEN,
    database: { url: url.toString(), poolSize: 4, statementTimeoutMs: STATEMENT_TIMEOUT_MS },
  });
  expect((await admin('POST', '/stores', { slug: 'outage', name: 'Outage' })).status).toBe(201);
  const key = (await (await admin('POST', '/stores/outage/keys', { name: 'content' })).json()) as { basic: string };
  basic = key.basic;
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the service on PostgreSQL during an outage', () => {
  it('answers 503 with Retry-After while the database is away, loses nothing, and recovers by itself', async () => {
    const before = await xapi('POST', 'statements', [statement()]);
    expect(before.status, JSON.stringify(before.json)).toBe(200);
    const [acknowledged] = before.json as string[];

    await server.stopServer();
    const outageEnds = Date.now() + OUTAGE_MS;
    const answers: Array<{ status: number; retryAfter: string | null; ms: number }> = [];
    while (Date.now() < outageEnds) {
      answers.push(await xapi('POST', 'statements', [statement()]));
      answers.push(await xapi('GET', 'statements?limit=5'));
      answers.push(await xapi('GET', `activities/state?activityId=${encodeURIComponent('http://example.com/course/1')}&agent=${encodeURIComponent('{"mbox":"mailto:learner@example.com"}')}&stateId=bookmark`));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(answers.length).toBeGreaterThan(3);
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toMatch(/^\d+$/);
      expect(answer.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 6_000);
    }
    const status = await admin('GET', '/status');
    expect([200, 503]).toContain(status.status);

    await server.startServer();
    // Back by itself: no restart of the service.
    const deadline = Date.now() + 15_000;
    let after = await xapi('POST', 'statements', [statement()]);
    while (after.status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await xapi('POST', 'statements', [statement()]);
    }
    expect(after.status).toBe(200);
    const read = await xapi('GET', `statements?statementId=${acknowledged}`);
    expect(read.status).toBe(200);
  }, 120_000);
});
