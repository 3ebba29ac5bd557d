/** CORS for browser-launched content on the xAPI resources (plugins/cors.ts). */
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allowedHeaders } from '../../src-server/http/plugins/cors';
import { LIMIT_DEFAULTS } from '../../src-server/limits/service-limits';
import { buildTestApp, statement, useDemoStore, type CreatedKey, type TestApp } from './test-app';

const demo = useDemoStore();
const ORIGIN = 'https://lms.example.com';

describe('preflight', () => {
  it.each(['/demo/xAPI/statements', '/xapi/statements', '/demo/xAPI/activities/state'])(
    'answers OPTIONS %s with 204 and the allowed methods and headers, without credentials or version',
    async (url) => {
      const response = await demo.t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, x-experience-api-version, content-type, if-match' },
      });
      expect(response.statusCode).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(response.headers['access-control-allow-methods']).toContain('PUT');
      const allowed = (response.headers['access-control-allow-headers'] as string).toLowerCase();
      for (const name of ['authorization', 'x-experience-api-version', 'content-type', 'if-match', 'if-none-match']) expect(allowed).toContain(name);
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    },
  );

  it('allows the extra headers a preflight asks for, and ignores malformed names', () => {
    expect(allowedHeaders('X-Requested-With, bad header, authorization')).toBe(
      'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match, X-Requested-With',
    );
  });
});

describe('actual requests', () => {
  it('echoes the Origin and exposes the headers xAPI clients read', async () => {
    const response = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements', headers: { origin: ORIGIN } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers.vary).toContain('Origin');
    const exposed = response.headers['access-control-expose-headers'] as string;
    for (const name of ['ETag', 'Last-Modified', 'X-Experience-API-Consistent-Through', 'X-Experience-API-Version']) expect(exposed).toContain(name);
  });

  it('puts the headers on refusals too, so content can read why', async () => {
    const response = await demo.t.app.inject({ method: 'POST', url: '/demo/xAPI/statements', payload: statement(), headers: { origin: ORIGIN } });
    expect(response.statusCode).toBe(400);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('answers "*" to a request without an Origin, and leaves the admin API alone', async () => {
    expect((await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements' })).headers['access-control-allow-origin']).toBe('*');
    const admin = await demo.t.admin({ method: 'GET', url: '/admin/api/stores', headers: { origin: ORIGIN } });
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('every refusal carries the headers, so browser content reads the real status and message', () => {
  const withOrigin = { origin: ORIGIN };
  const limited = { t: undefined as TestApp | undefined, key: undefined as CreatedKey | undefined };
  beforeAll(async () => {
    limited.t = await buildTestApp({ limits: { ...LIMIT_DEFAULTS, maxBatch: 2, maxBodyBytes: 64 * 1024, ratePerSecond: 1, rateBurst: 2 } });
    await limited.t.createStore('tight');
    limited.key = await limited.t.createKey('tight');
  });
  afterAll(async () => limited.t?.close());

  const expectCors = (response: { statusCode: number; headers: Record<string, unknown>; json(): { error: { status: number; message: string } } }, status: number) => {
    expect(response.statusCode).toBe(status);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers['access-control-expose-headers']).toBeDefined();
    expect(response.json().error.status).toBe(status);
    expect(response.json().error.message.length).toBeGreaterThan(10);
  };

  it('400: a body that is not JSON, with its line and column', async () => {
    const response = await demo.t.xapi(demo.key, {
      method: 'POST',
      url: '/demo/xAPI/statements',
      headers: { ...withOrigin, 'content-type': 'application/json' },
      payload: '{\n  "actor": {"mbox": "mailto:a@example.com"},\n  "verb": {"id": "http://x.test/v"}\n  "object": {"id": "http://x.test/a"}\n}',
    });
    expectCors(response, 400);
    expect(response.json().error.message).toBe('The body is not valid JSON: at line 4, column 3, expected "," or "}" but found "\\"".');
  });

  it('401 and 403: no credentials, and a key of another Store', async () => {
    expectCors(await demo.t.app.inject({ method: 'GET', url: '/demo/xAPI/statements', headers: { ...withOrigin, 'x-experience-api-version': '1.0.3' } }), 401);
    await demo.t.createStore('elsewhere');
    expectCors(await demo.t.xapi(demo.key, { method: 'GET', url: '/elsewhere/xAPI/statements', headers: withOrigin }), 403);
  });

  it('404: an unknown resource under a Store names the Store and lists its resources', async () => {
    const response = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statement', headers: withOrigin });
    expectCors(response, 404);
    expect(response.json().error.message).toBe(
      'Store "demo" has no xAPI resource "statement". Its endpoint is http://127.0.0.1:8411/demo/xAPI/ and the resources there are: statements, activities, activities/state, activities/profile, agents, agents/profile, about.',
    );
  });

  it('404: an unknown Store, and a path without the xAPI segment, show the shape of an endpoint', async () => {
    const store = await demo.t.xapi(demo.key, { method: 'GET', url: '/no-such-store/xAPI/statements', headers: withOrigin });
    expectCors(store, 404);
    expect(store.json().error.message).toContain('http://127.0.0.1:8411/<store_slug>/xAPI/');
    const bare = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/statements', headers: withOrigin });
    expectCors(bare, 404);
    expect(bare.json().error.message).toContain('An xAPI endpoint has the shape http://127.0.0.1:8411/<store_slug>/xAPI/');
  });

  it('OPTIONS is answered on unknown resources, unknown Stores and paths without the xAPI segment', async () => {
    for (const url of ['/demo/xAPI/nothing-here', '/no-such-store/xAPI/statements', '/demo/statements']) {
      const response = await demo.t.app.inject({ method: 'OPTIONS', url, headers: { ...withOrigin, 'access-control-request-method': 'POST' } });
      expect(response.statusCode, url).toBe(204);
      expect(response.headers['access-control-allow-origin'], url).toBe(ORIGIN);
      expect(response.headers['access-control-allow-methods'], url).toContain('POST');
    }
  });

  it('409: a different statement under an existing id', async () => {
    const id = '0f7f3f1e-6a0d-4d5e-9c1b-2b9f8a3c4d5e';
    const put = (verb: string) =>
      demo.t.xapi(demo.key, { method: 'PUT', url: `/demo/xAPI/statements?statementId=${id}`, payload: statement({ verb: { id: verb } }), headers: withOrigin });
    expect((await put('http://x.test/one')).statusCode).toBe(204);
    expectCors(await put('http://x.test/two'), 409);
  });

  it('412: a document write whose If-Match does not match', async () => {
    const url = '/demo/xAPI/activities/profile?activityId=http%3A%2F%2Fx.test%2Fa&profileId=p';
    const created = await demo.t.xapi(demo.key, { method: 'PUT', url, payload: { a: 1 }, headers: { ...withOrigin, 'if-none-match': '*' } });
    expect(created.statusCode, created.body).toBe(204);
    expectCors(await demo.t.xapi(demo.key, { method: 'PUT', url, payload: { a: 2 }, headers: { ...withOrigin, 'if-match': '"nope"' } }), 412);
  });

  it('413: a batch too large, and a body over the limit refused before it is read', async () => {
    const { t, key } = limited as { t: TestApp; key: CreatedKey };
    expectCors(await t.xapi(key, { method: 'POST', url: '/tight/xAPI/statements', payload: [statement(), statement(), statement()], headers: withOrigin }), 413);
    const big = JSON.stringify([statement({ context: { extensions: { 'http://x.test/pad': 'x'.repeat(70 * 1024) } } })]);
    expectCors(await t.xapi(key, { method: 'POST', url: '/tight/xAPI/statements', payload: big, headers: { ...withOrigin, 'content-type': 'application/json' } }), 413);
  });

  it('429: a key over its rate', async () => {
    const { t, key } = limited as { t: TestApp; key: CreatedKey };
    let response;
    for (let i = 0; i < 5; i++) {
      response = await t.xapi(key, { method: 'GET', url: '/tight/xAPI/statements', headers: withOrigin });
      if (response.statusCode === 429) break;
    }
    expectCors(response!, 429);
    expect(response!.headers['retry-after']).toBeDefined();
  });
});

describe('a request that arrives while the service stops', () => {
  it('is answered 503 with Retry-After and the CORS headers', async () => {
    const t = await buildTestApp();
    await t.createStore('demo');
    const key = await t.createKey('demo');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const auth = `Authorization: Basic ${key.basic}\r\nX-Experience-API-Version: 1.0.3\r\n`;
    const body = JSON.stringify(statement());
    // A POST whose body is held back is in flight while the service starts to stop; the request
    // pipelined behind it on the same connection arrives after.
    const inFlight = new Promise((resolve) => t.app.server.once('request', resolve));
    socket.write(`POST /demo/xAPI/statements HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`);
    await inFlight;
    const closing = t.app.close();
    await vi.waitFor(() => expect(t.app.server.listening).toBe(false));
    socket.write(`${body}GET /demo/xAPI/statements HTTP/1.1\r\nHost: x\r\nOrigin: ${ORIGIN}\r\n${auth}\r\n`);
    await closing;
    await vi.waitFor(() => expect(received).toContain('service_stopping'));
    const second = received.slice(received.indexOf('HTTP/1.1 503'));
    expect(received.startsWith('HTTP/1.1 200')).toBe(true);
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toContain(`access-control-allow-origin: ${ORIGIN}`);
    expect(second).toContain('retry-after: 5');
    socket.destroy();
    await t.close();
  });
});
