/**
 * A service without --public-url, reached from another machine: every URL it hands out (Store
 * endpoints, launch URLs, errors, OpenAPI) starts with the origin the request came to; a trusted
 * proxy's X-Forwarded-Proto/-Host are believed, anyone else's are not; --public-url wins when set;
 * a Host no URL can carry falls back to the address the service is bound to. What is recorded
 * (statement authorities) names the service the same way whichever name was used.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { requestOrigin } from '../../src-server/http/request-origin';
import { buildZip } from '../bench/zip-writer';
import { ADMIN_TOKEN, buildTestApp, PUBLIC_URL, statement, type TestApp } from './test-app';

const BOUND = 'http://127.0.0.1:8411';
const PROXY = '10.0.0.7';
const MANIFESTS = path.resolve(import.meta.dirname, '../fixtures/packages/manifests');

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A service bound to every address (so the admin guard leaves Host alone), without --public-url. */
async function openService(options: { trustProxy?: string[]; publicUrl?: string } = {}): Promise<TestApp> {
  t = await buildTestApp({
    publicUrl: () => options.publicUrl ?? BOUND,
    followRequestOrigin: options.publicUrl === undefined,
    serviceInfo: () => ({ host: '0.0.0.0', port: 8411, listenUrl: BOUND }),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
  });
  await t.createStore('demo');
  return t;
}

/** An admin request as a browser elsewhere sends it: its own Host, and headers beside. */
function adminFrom(app: TestApp, host: string, options: InjectOptions & { from?: string } = {}) {
  const { from, ...rest } = options;
  return app.app.inject({
    method: 'GET',
    ...rest,
    ...(from ? { remoteAddress: from } : {}),
    headers: { host, authorization: `Bearer ${ADMIN_TOKEN}`, ...(rest.headers as Record<string, string> | undefined) },
  });
}

const endpointFor = async (app: TestApp, host: string, options: InjectOptions & { from?: string } = {}) =>
  (await adminFrom(app, host, { url: '/admin/api/stores/demo', ...options })).json().endpoint as string;

describe('without --public-url, URLs follow the request', () => {
  it("names the Store's endpoint by the Host it was asked for, in the list, the Store and the status", async () => {
    const app = await openService();
    expect(await endpointFor(app, 'lrs-host:8411')).toBe('http://lrs-host:8411/demo/xAPI/');
    expect(await endpointFor(app, '192.168.1.20:8411')).toBe('http://192.168.1.20:8411/demo/xAPI/');
    expect(await endpointFor(app, '[fd00::20]:8411')).toBe('http://[fd00::20]:8411/demo/xAPI/');
    // Lower-cased, the default port dropped: the URL a browser would show.
    expect(await endpointFor(app, 'LRS.Example.org:80')).toBe('http://lrs.example.org/demo/xAPI/');
    const list = await adminFrom(app, 'lrs-host:8411', { url: '/admin/api/stores' });
    expect(list.json().stores[0].endpoint).toBe('http://lrs-host:8411/demo/xAPI/');
    const status = await adminFrom(app, 'lrs-host:8411', { url: '/admin/api/status' });
    expect(status.json().publicUrl).toBe('http://lrs-host:8411');
    const created = await adminFrom(app, 'lrs-host:8411', { method: 'POST', url: '/admin/api/stores', payload: { slug: 'other', name: 'Other' } });
    expect(created.json().endpoint).toBe('http://lrs-host:8411/other/xAPI/');
  });

  it('names the request host in errors and the OpenAPI server, and keeps `more` a path that works under it', async () => {
    const app = await openService();
    const key = await app.createKey('demo');
    const unknown = await app.app.inject({ method: 'GET', url: '/nowhere/xAPI/about', headers: { host: 'lrs-host:8411' } });
    expect(unknown.json().error.message).toContain('http://lrs-host:8411/<store_slug>/xAPI/');
    const notFound = await app.app.inject({ method: 'GET', url: '/demo/xAPI/nothing', headers: { host: 'lrs-host:8411' } });
    expect(notFound.json().error.message).toContain('Its endpoint is http://lrs-host:8411/demo/xAPI/');
    const openapi = await app.app.inject({ method: 'GET', url: '/admin/api/openapi.json', headers: { host: 'lrs-host:8411' } });
    expect(openapi.json().servers).toEqual([expect.objectContaining({ url: expect.stringMatching(/^http:\/\/lrs-host:8411/) as unknown })]);
    const again = await app.app.inject({ method: 'GET', url: '/admin/api/openapi.json', headers: { host: 'other-name:8411' } });
    expect(again.json().servers[0].url).toMatch(/^http:\/\/other-name:8411/);

    for (let i = 0; i < 2; i++) expect((await app.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement(), headers: { host: 'lrs-host:8411' } })).statusCode).toBe(200);
    const page = await app.xapi(key, { method: 'GET', url: '/demo/xAPI/statements?limit=1', headers: { host: 'lrs-host:8411' } });
    const more = page.json().more as string;
    // A path: the reader resolves it against the endpoint it used, whatever host that named.
    expect(more).toMatch(/^\/demo\/xapi\/statements\?more=/);
    expect((await app.xapi(key, { method: 'GET', url: more, headers: { host: 'lrs-host:8411' } })).json().statements).toHaveLength(1);
  });

  it("records the service's own address as the authority, whichever Host the statement came by", async () => {
    const app = await openService();
    const key = await app.createKey('demo');
    await app.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement(), headers: { host: 'lrs-host:8411' } });
    await app.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement(), headers: { host: '192.168.1.20:8411' } });
    const read = await app.xapi(key, { method: 'GET', url: '/demo/xAPI/statements', headers: { host: 'lrs-host:8411' } });
    const homePages = (read.json().statements as Array<{ authority: { account: { homePage: string } } }>).map((s) => s.authority.account.homePage);
    expect(homePages).toEqual([BOUND, BOUND]);
  });

  it("hands a launch URLs under the Host the console asked by, and names the learner's account by the service's own address", async () => {
    const app = await openService();
    const cmi5 = readFileSync(path.join(MANIFESTS, 'cmi5/ladder-safety/cmi5.xml'), 'utf8');
    const imported = await adminFrom(app, 'lrs-host:8411', {
      method: 'POST',
      url: '/admin/api/stores/demo/packages',
      headers: { 'content-type': 'application/zip' },
      payload: buildZip([{ name: 'cmi5.xml', content: cmi5 }, { name: 'intro/index.html', content: 'x' }, { name: 'quiz/index.html', content: 'x' }]),
    });
    expect(imported.statusCode, imported.body).toBe(201);
    const launched = await adminFrom(app, 'lrs-host:8411', {
      method: 'POST',
      url: `/admin/api/stores/demo/packages/${imported.json().id as string}/launches`,
      payload: { learner: { name: 'Ada', mbox: 'ada@example.com' } },
    });
    expect(launched.statusCode, launched.body).toBe(201);
    const url = new URL(launched.json().url as string);
    expect(url.origin).toBe('http://lrs-host:8411');
    expect(url.searchParams.get('endpoint')).toBe('http://lrs-host:8411/demo/xAPI/');
    expect(url.searchParams.get('fetch')).toMatch(/^http:\/\/lrs-host:8411\/demo\/bench\/fetch\//);
    expect(JSON.parse(url.searchParams.get('actor')!)).toMatchObject({ account: { homePage: BOUND } });
  });
});

describe('behind a proxy, without --public-url', () => {
  const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'lrs.example.org' };

  it('uses X-Forwarded-Proto and -Host from a listed proxy', async () => {
    const app = await openService({ trustProxy: [PROXY] });
    expect(await endpointFor(app, '127.0.0.1:8411', { from: PROXY, headers: forwarded })).toBe('https://lrs.example.org/demo/xAPI/');
    // Several proxies in a row: the nearest one's value.
    expect(await endpointFor(app, '127.0.0.1:8411', { from: PROXY, headers: { 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'evil.example, lrs.example.org' } })).toBe(
      'https://lrs.example.org/demo/xAPI/',
    );
  });

  it('ignores them from any other address, and from everyone when no proxy is listed', async () => {
    const listed = await openService({ trustProxy: [PROXY] });
    expect(await endpointFor(listed, 'lrs-host:8411', { from: '192.0.2.9', headers: forwarded })).toBe('http://lrs-host:8411/demo/xAPI/');
    await listed.close();
    const none = await openService();
    expect(await endpointFor(none, 'lrs-host:8411', { from: PROXY, headers: forwarded })).toBe('http://lrs-host:8411/demo/xAPI/');
  });

  it("accepts the console's changes from the origin the proxy forwards, and only from it", async () => {
    // Bound to loopback, as behind a proxy on the same machine: the Host check stays on the Host header.
    t = await buildTestApp({ publicUrl: () => BOUND, followRequestOrigin: true, trustProxy: [PROXY], serviceInfo: () => ({ host: '127.0.0.1', port: 8411 }) });
    const create = (slug: string, origin: string, from: string) =>
      adminFrom(t!, '127.0.0.1:8411', { method: 'POST', url: '/admin/api/stores', from, headers: { ...forwarded, origin }, payload: { slug, name: slug } });
    const accepted = await create('proxied', 'https://lrs.example.org', PROXY);
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(accepted.json().endpoint).toBe('https://lrs.example.org/proxied/xAPI/');
    expect((await create('elsewhere', 'https://evil.example', PROXY)).json().error.code).toBe('origin_not_allowed');
    expect((await create('unlisted', 'https://lrs.example.org', '192.0.2.9')).json().error.code).toBe('origin_not_allowed');
    // A forwarded host never stands in for the Host header the rebinding check reads.
    const rebound = await adminFrom(t, 'evil.example', { url: '/admin/api/stores', from: PROXY, headers: { 'x-forwarded-host': '127.0.0.1:8411' } });
    expect(rebound.json().error.code).toBe('host_not_allowed');
  });
});

describe('with --public-url', () => {
  it('uses it whatever the Host or a trusted proxy says', async () => {
    const app = await openService({ publicUrl: 'https://lrs.example.org/lrs', trustProxy: [PROXY] });
    expect(await endpointFor(app, 'lrs-host:8411')).toBe('https://lrs.example.org/lrs/demo/xAPI/');
    expect(await endpointFor(app, '127.0.0.1:8411', { from: PROXY, headers: { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'other.example' } })).toBe(
      'https://lrs.example.org/lrs/demo/xAPI/',
    );
  });

  it('is what the test app uses by default', async () => {
    t = await buildTestApp();
    await t.createStore('demo');
    expect(await endpointFor(t, 'localhost:8411')).toBe(`${PUBLIC_URL}/demo/xAPI/`);
  });
});

describe('a Host no URL can carry', () => {
  it.each([
    ['a path', 'evil.example/phish'],
    ['user information', 'user@evil.example'],
    ['a query', 'evil.example?x=1'],
    ['a fragment', 'evil.example#top'],
    ['a space', 'evil example'],
    ['a port out of range', 'lrs-host:99999'],
    ['port 0', 'lrs-host:0'],
    ['an empty port', 'lrs-host:'],
    ['a bracketed non-address', '[evil.example]'],
    ['a backslash', 'evil.example\\x'],
    ['quotes', 'lrs-host"><script>'],
    ['a name too long', `${'a'.repeat(60)}.`.repeat(5)],
  ])('falls back to the bound address for %s', async (_name, host) => {
    const app = await openService();
    expect(await endpointFor(app, host)).toBe(`${BOUND}/demo/xAPI/`);
  });

  it('falls back for a forwarded scheme other than http or https', async () => {
    const app = await openService({ trustProxy: [PROXY] });
    expect(await endpointFor(app, 'lrs-host:8411', { from: PROXY, headers: { 'x-forwarded-proto': 'javascript' } })).toBe(`${BOUND}/demo/xAPI/`);
  });

  it('is refused by requestOrigin however it was sent: line breaks, none at all (HTTP/1.0)', () => {
    for (const host of ['lrs-host\r\nX-Injected: 1', 'lrs-host\n', 'lrs-host:8411\tx', 'lrs-host%0d%0a', '']) {
      expect(requestOrigin({ protocol: 'http', host }), JSON.stringify(host)).toBeNull();
    }
    expect(requestOrigin({ protocol: 'https', host: 'lrs.example.org:443' })).toBe('https://lrs.example.org');
    expect(requestOrigin({ protocol: 'http', host: 'lore_lrs:8411' })).toBe('http://lore_lrs:8411');
  });
});
