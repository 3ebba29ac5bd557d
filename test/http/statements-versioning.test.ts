/** The X-Experience-API-Version header on statements (xAPI 1.0.3 Part Three §3.3; 2.0.0 §1.3). */
import { describe, expect, it } from 'vitest';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();

const withoutVersion = () => demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement(), version: null });

describe('a request without X-Experience-API-Version', () => {
  it('is refused with 400 naming the header, answered as 2.0.0 for credentials never seen', async () => {
    const response = await withoutVersion();
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('X-Experience-API-Version');
    expect(response.headers['x-experience-api-version']).toBe('2.0.0');
  });

  it('is answered in the version the same key last used', async () => {
    await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements', version: '1.0.3' });
    expect((await withoutVersion()).headers['x-experience-api-version']).toBe('1.0.3');
    await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements', version: '2.0.0' });
    expect((await withoutVersion()).headers['x-experience-api-version']).toBe('2.0.0');
  });

  it('does not learn a version from a request whose credentials fail', async () => {
    await demo.t.app.inject({
      method: 'GET',
      url: '/demo/xAPI/statements',
      headers: { authorization: `Basic ${Buffer.from(`${demo.key.id}:wrong`).toString('base64')}`, 'x-experience-api-version': '1.0.3' },
    });
    expect((await withoutVersion()).headers['x-experience-api-version']).toBe('2.0.0');
  });
});
