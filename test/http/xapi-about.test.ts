import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './test-app';

let t: TestApp;

beforeEach(async () => {
  t = await buildTestApp();
  await t.createStore('demo');
});
afterEach(() => t.close());

// xAPI 1.0.3 Part Three §2.8; 2.0.0 Part Four §4.1.6.7.
describe('GET /about', () => {
  it('answers the versions, latest patch of each major version included, and extensions, nothing else (§2.8.s5.b1, b2)', async () => {
    for (const url of ['/demo/xAPI/about', '/xapi/about', '/XAPI/about']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['extensions', 'version']);
      expect(body.version).toEqual(expect.arrayContaining(['1.0.3', '2.0.0']));
      for (const version of body.version) expect(version).toMatch(/^(1\.0\.\d+|2\.0\.\d+)$/);
      expect(body.extensions).toEqual({});
    }
  });

  it('does not reject a request for its version header, whatever it says (§2.8.s5.b4), nor for its credentials (§2.8.s5.b3)', async () => {
    for (const headers of [{ 'x-experience-api-version': '0.9' }, { 'x-experience-api-version': 'nonsense' }, { authorization: 'Basic Og==' }]) {
      const response = await t.app.inject({ method: 'GET', url: '/demo/xAPI/about', headers });
      expect(response.statusCode).toBe(200);
    }
  });

  it('answers HEAD without a body', async () => {
    const response = await t.app.inject({ method: 'HEAD', url: '/xapi/about' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });
});
