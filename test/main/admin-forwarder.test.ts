import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApiUrl, forwardAdminCall } from '../../src-main/admin-forwarder';
import type { FetchLike, TargetResolution } from '../../src-main/admin-forwarder';
import { startService } from '../../src-server/service/service';
import type { RunningService } from '../../src-server/service/service';

const TOKEN = 'test-admin-token-0123456789';
const target = (url = 'http://lrs.test'): (() => TargetResolution) => () => ({ ok: true, target: { url, token: TOKEN } });

function fakeFetch(response: () => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return response();
  };
  return { calls, fetchImpl };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('forwardAdminCall: refusals before anything is sent', () => {
  it.each([['stores.explode'], ['__proto__'], ['constructor'], [42], [undefined]])('refuses the operation name %s', async (name) => {
    const { calls, fetchImpl } = fakeFetch(() => json(200, {}));
    const result = await forwardAdminCall(name, {}, target(), fetchImpl);
    expect(result).toMatchObject({ ok: false, error: { status: 400, code: 'unknown_operation' } });
    expect(calls).toHaveLength(0);
  });

  it('refuses an input that fails the operation schema and names the field', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json(200, {}));
    const result = await forwardAdminCall('stores.create', { slug: 'Bad Slug!', name: 'x' }, target(), fetchImpl);
    expect(result).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_input', field: 'slug' } });
    expect(calls).toHaveLength(0);
  });

  it('refuses unknown input fields of a strict schema', async () => {
    const { fetchImpl } = fakeFetch(() => json(200, {}));
    const result = await forwardAdminCall('stores.create', { slug: 'demo', name: 'Demo', admin: true }, target(), fetchImpl);
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('passes on why there is no connection to call (the local service not running)', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json(200, {}));
    const result = await forwardAdminCall(
      'status.get',
      {},
      () => ({ ok: false, error: { status: 503, code: 'service_unavailable', message: 'stopped' } }),
      fetchImpl,
    );
    expect(result).toEqual({ ok: false, error: { status: 503, code: 'service_unavailable', message: 'stopped' } });
    expect(calls).toHaveLength(0);
  });
});

describe('forwardAdminCall: the request', () => {
  it('sends the request buildAdminRequest makes, with the admin token, to the target', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json(201, { id: '1', slug: 'demo', name: 'Demo', environment: 'test', createdAt: 'a', updatedAt: 'b', endpoint: 'e' }));
    await forwardAdminCall('stores.create', { slug: 'demo', name: 'Demo' }, target('http://lrs.test/base/'), fetchImpl);
    expect(calls[0]?.url).toBe('http://lrs.test/base/admin/api/stores');
    expect(calls[0]?.init.method).toBe('POST');
    expect(calls[0]?.init.headers).toMatchObject({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    // Defaults of the schema are applied before sending.
    expect(JSON.parse(String(calls[0]?.init.body))).toEqual({ slug: 'demo', name: 'Demo', environment: 'test' });
  });

  it('puts GET inputs in the query string and path parameters in the path', async () => {
    const { calls, fetchImpl } = fakeFetch(() => json(200, { records: [], next: null }));
    await forwardAdminCall('statements.search', { slug: 'de mo', status: 'rejected' }, target(), fetchImpl);
    expect(calls[0]?.url).toBe('http://lrs.test/admin/api/stores/de%20mo/statements?status=rejected&limit=50');
    expect(calls[0]?.init.body).toBeUndefined();
  });
});

describe('forwardAdminCall: answers and failures', () => {
  it('returns the validated output', async () => {
    const { fetchImpl } = fakeFetch(() => json(200, { records: [], next: null }));
    await expect(forwardAdminCall('statements.search', { slug: 'demo' }, target(), fetchImpl)).resolves.toEqual({
      ok: true,
      value: { records: [], next: null },
    });
  });

  it('returns undefined for an empty 204 answer', async () => {
    const { fetchImpl } = fakeFetch(() => new Response(null, { status: 204 }));
    await expect(forwardAdminCall('stores.delete', { slug: 'demo' }, target(), fetchImpl)).resolves.toEqual({ ok: true, value: undefined });
  });

  it("maps the service's error body to {status, code, message, field}", async () => {
    const { fetchImpl } = fakeFetch(() =>
      json(409, { error: { status: 409, code: 'store_exists', message: 'A Store with slug "demo" exists.', field: 'slug' } }),
    );
    const result = await forwardAdminCall('stores.create', { slug: 'demo', name: 'Demo' }, target(), fetchImpl);
    expect(result).toEqual({
      ok: false,
      error: { status: 409, code: 'store_exists', message: 'A Store with slug "demo" exists.', field: 'slug' },
    });
  });

  it('maps an error without a Lore body (a proxy page) to its HTTP status', async () => {
    const { fetchImpl } = fakeFetch(() => new Response('<html>Bad Gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    const result = await forwardAdminCall('status.get', {}, target(), fetchImpl);
    expect(result).toEqual({ ok: false, error: { status: 502, code: 'http_error', message: 'The service answered HTTP 502 Bad Gateway.' } });
  });

  it('says when the address does not serve the admin API (404 without a Lore body)', async () => {
    const { fetchImpl } = fakeFetch(() => new Response('not found', { status: 404 }));
    const result = await forwardAdminCall('status.get', {}, target(), fetchImpl);
    expect(result).toMatchObject({ ok: false, error: { status: 404, code: 'not_found', message: expect.stringMatching(/not serve the Lore admin API/) } });
  });

  it('reports a network failure as status 0, code unreachable, as plain data', async () => {
    const fetchImpl: FetchLike = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }));
    const result = await forwardAdminCall('status.get', {}, target('http://127.0.0.1:1'), fetchImpl);
    expect(result).toEqual({
      ok: false,
      error: { status: 0, code: 'unreachable', message: 'Could not reach the Lore service at http://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1.' },
    });
    expect(Object.getPrototypeOf((result as { error: object }).error)).toBe(Object.prototype);
  });

  it('reports a service that does not answer in time as unreachable', async () => {
    // AbortSignal.timeout runs on Node's own timers, which fake timers do not drive: a short real one.
    const fetchImpl: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    const result = await forwardAdminCall('status.get', {}, target(), fetchImpl, 20);
    expect(result).toMatchObject({ ok: false, error: { code: 'unreachable', message: expect.stringMatching(/no answer in time/) } });
  });

  it('refuses an answer that does not match the output schema', async () => {
    const { fetchImpl } = fakeFetch(() => json(200, { records: 'nope' }));
    const result = await forwardAdminCall('statements.search', { slug: 'demo' }, target(), fetchImpl);
    expect(result).toMatchObject({ ok: false, error: { status: 502, code: 'invalid_response', field: 'records' } });
  });

  it('builds admin API URLs under a base URL with or without a trailing slash', () => {
    expect(adminApiUrl('https://lrs.example.org/', '/status')).toBe('https://lrs.example.org/admin/api/status');
    expect(adminApiUrl('https://example.org/lore', '/stores')).toBe('https://example.org/lore/admin/api/stores');
  });
});

describe('forwardAdminCall against a real Lore service', () => {
  let dir: string;
  let service: RunningService;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-forwarder-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir: dir, adminToken: TOKEN });
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a Store and lists it back through the forwarder', async () => {
    const to = target(service.url);
    const created = await forwardAdminCall('stores.create', { slug: 'course-1', name: 'Course 1' }, to);
    expect(created).toMatchObject({ ok: true, value: { slug: 'course-1', environment: 'test' } });
    const listed = await forwardAdminCall('stores.list', {}, to);
    expect(listed).toMatchObject({ ok: true, value: { stores: [{ slug: 'course-1', statementCount: 0 }] } });
  });

  it("maps the service's own 401 for a wrong token", async () => {
    const result = await forwardAdminCall('status.get', {}, () => ({ ok: true, target: { url: service.url, token: 'wrong-token-0000000000' } }));
    expect(result).toMatchObject({ ok: false, error: { status: 401, code: 'unauthenticated', message: 'The admin token is not valid.' } });
  });

  it('maps a 404 of an unknown Store', async () => {
    const result = await forwardAdminCall('stores.get', { slug: 'nope' }, target(service.url));
    expect(result).toMatchObject({ ok: false, error: { status: 404 } });
  });
});
