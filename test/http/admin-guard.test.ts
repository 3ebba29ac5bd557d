import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkAdminRequest, isLoopbackName } from '../../src-server/http/plugins/admin-guard';
import type { AdminGuardPolicy, AdminRequestFacts } from '../../src-server/http/plugins/admin-guard';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from './test-app';

const LOOPBACK: AdminGuardPolicy = { bindHost: '127.0.0.1', publicUrl: 'http://127.0.0.1:8411' };
const PROXIED: AdminGuardPolicy = { bindHost: '127.0.0.1', publicUrl: 'https://lrs.example.org' };
const EVERYWHERE: AdminGuardPolicy = { bindHost: '0.0.0.0', publicUrl: 'https://lrs.example.org' };

const get = (host: string | undefined, origin?: string): AdminRequestFacts => ({ method: 'GET', host, origin });
const post = (host: string | undefined, origin?: string): AdminRequestFacts => ({ method: 'POST', host, origin });

describe('the admin guard (checkAdminRequest)', () => {
  it.each<[string, AdminRequestFacts, AdminGuardPolicy, true | 'host_not_allowed' | 'origin_not_allowed']>([
    ['a loopback IP as Host', get('127.0.0.1:8411'), LOOPBACK, true],
    ['localhost as Host', get('localhost:8411'), LOOPBACK, true],
    ['a *.localhost name as Host', get('console.localhost:8411'), LOOPBACK, true],
    ['[::1] as Host', get('[::1]:8411'), LOOPBACK, true],
    ['another 127/8 address', get('127.0.0.2:8411'), LOOPBACK, true],
    ['a rebinding name on a loopback service', get('evil.example:8411'), LOOPBACK, 'host_not_allowed'],
    ['a name that only starts like localhost', get('localhost.evil.example'), LOOPBACK, 'host_not_allowed'],
    ['a LAN address on a loopback service', get('192.168.1.5:8411'), LOOPBACK, 'host_not_allowed'],
    ['the public URL host behind a proxy', get('lrs.example.org'), PROXIED, true],
    ['the public URL host in another case', get('LRS.Example.org'), PROXIED, true],
    ['any name on a service bound to every address', get('lrs.internal:8411'), EVERYWHERE, true],
    ['no Host header (not a browser)', get(undefined), LOOPBACK, true],
    ['an unknown binding counts as loopback', get('evil.example'), {}, 'host_not_allowed'],
    ['a change from the same origin', post('127.0.0.1:8411', 'http://127.0.0.1:8411'), LOOPBACK, true],
    ['a change without Origin (curl, the desktop app)', post('127.0.0.1:8411'), LOOPBACK, true],
    ['a change from another site', post('127.0.0.1:8411', 'https://evil.example'), LOOPBACK, 'origin_not_allowed'],
    ['a change from another loopback port', post('127.0.0.1:8411', 'http://127.0.0.1:3000'), LOOPBACK, 'origin_not_allowed'],
    ['a change from an opaque origin', post('127.0.0.1:8411', 'null'), LOOPBACK, 'origin_not_allowed'],
    ['a change from a file:// page', post('127.0.0.1:8411', 'file://'), LOOPBACK, 'origin_not_allowed'],
    ['a change with default ports spelled out', post('localhost:80', 'http://localhost'), { bindHost: 'localhost' }, true],
    ['a change from the public origin through a proxy', post('127.0.0.1:8411', 'https://lrs.example.org'), PROXIED, true],
    ['a change from another site on an open service', post('lrs.example.org', 'https://evil.example'), EVERYWHERE, 'origin_not_allowed'],
    ['a change from the origin a trusted proxy forwards', { ...post('127.0.0.1:8411', 'https://lrs.example.org'), requestOrigin: 'https://lrs.example.org' }, LOOPBACK, true],
    ['a change from another site through a trusted proxy', { ...post('127.0.0.1:8411', 'https://evil.example'), requestOrigin: 'https://lrs.example.org' }, LOOPBACK, 'origin_not_allowed'],
    ['a read from another site (no CORS: it cannot read the answer)', get('127.0.0.1:8411', 'https://evil.example'), LOOPBACK, true],
    ['a DELETE from another site', { method: 'DELETE', host: '127.0.0.1:8411', origin: 'https://evil.example' }, LOOPBACK, 'origin_not_allowed'],
  ])('%s', (_name, facts, policy, expected) => {
    const verdict = checkAdminRequest(facts, policy);
    if (expected === true) expect(verdict).toEqual({ ok: true });
    else expect(verdict).toMatchObject({ ok: false, code: expected });
  });

  it.each([
    ['localhost', true],
    ['LOCALHOST.', true],
    ['127.0.0.1', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['127.0.0.1.evil.example', false],
    ['example.localhost.evil', false],
  ])('isLoopbackName(%j) is %s', (name, expected) => {
    expect(isLoopbackName(name)).toBe(expected);
  });
});

describe('the admin guard in the service', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(() => t.close());

  it('refuses an admin request under a foreign Host with 403, before asking for the token', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/admin/api/stores', headers: { host: 'evil.example' } });
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toMatchObject({ code: 'host_not_allowed' });
    expect(response.json().error.message).toMatch(/evil\.example/);
  });

  it('refuses a percent-encoded admin path under a foreign Host as well (the router decodes it)', async () => {
    for (const url of ['/%61dmin/api/stores', '/adm%69n/api/stores', '/%61dmin/']) {
      const response = await t.app.inject({
        method: 'GET',
        url,
        headers: { host: 'evil.example', authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(response.statusCode, url).toBe(403);
    }
  });

  it('refuses the web console page under a foreign Host too', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/admin/', headers: { host: 'evil.example:8411' } });
    expect(response.statusCode).toBe(403);
  });

  it('refuses a Store creation from another site even with the admin token', async () => {
    const response = await t.admin({
      method: 'POST',
      url: '/admin/api/stores',
      headers: { origin: 'https://evil.example' },
      payload: { slug: 'demo', name: 'Demo' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('origin_not_allowed');
    expect((await t.admin({ method: 'GET', url: '/admin/api/stores' })).json().stores).toEqual([]);
  });

  it('accepts a Store creation from the console page of the same origin', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/api/stores',
      headers: { host: '127.0.0.1:8411', origin: 'http://127.0.0.1:8411', authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { slug: 'demo', name: 'Demo' },
    });
    expect(response.statusCode).toBe(201);
  });

  it('leaves xAPI requests from other sites to CORS (content runs on other origins)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/xapi/about', headers: { host: 'lrs.example.org', origin: 'https://course.example' } });
    expect(response.statusCode).toBe(200);
  });
});
