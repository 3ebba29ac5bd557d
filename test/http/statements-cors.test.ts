/** CORS for browser-launched content on the xAPI resources (plugins/cors.ts). */
import { describe, expect, it } from 'vitest';
import { allowedHeaders } from '../../src-server/http/plugins/cors';
import { statement, useDemoStore } from './test-app';

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
