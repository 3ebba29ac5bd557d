import { afterEach, describe, expect, it } from 'vitest';
import { normaliseRequestUrl, normaliseXapiSegment } from '../../src-server/http/xapi-path';
import { buildTestApp, statement, useDemoStore, type TestApp } from './test-app';

describe('xAPI path normalisation', () => {
  it.each([
    ['/demo/xAPI/statements', '/demo/xapi/statements'],
    ['/demo/XAPI/statements?limit=1', '/demo/xapi/statements?limit=1'],
    ['/XAPI/about', '/xapi/about'],
    ['/xAPI?x=1', '/xapi?x=1'],
    ['/admin/api/stores', '/admin/api/stores'],
    ['/demo/xapis/statements', '/demo/xapis/statements'],
    ['/demo/other/xAPI/statements', '/demo/other/xAPI/statements'],
  ])('rewrites %s to %s', (input, expected) => {
    expect(normaliseXapiSegment(input)).toBe(expected);
  });

  it.each([
    ['/demo/xAPI//statements', '/demo/xapi/statements'],
    ['/demo//xAPI/statements', '/demo/xapi/statements'],
    ['//demo/xAPI/statements', '/demo/xapi/statements'],
    ['/demo///xapi///activities//state?activityId=http://x.test//a', '/demo/xapi/activities/state?activityId=http://x.test//a'],
    ['/demo/xAPI/statements/', '/demo/xapi/statements/'],
  ])('counts each run of slashes in %s as one and leaves the query alone', (input, expected) => {
    expect(normaliseRequestUrl(input)).toBe(expected);
  });
});

describe('endpoints as authoring tools join them', () => {
  const demo = useDemoStore();

  it.each([
    '/demo/xAPI//statements',
    '/demo//xAPI/statements',
    '//demo/xAPI/statements',
    '/demo/xAPI/statements/',
    '/demo/xapi/statements',
    '/demo/XAPI//statements/',
  ])('answers GET %s directly with 200, never a redirect', async (url) => {
    const response = await demo.t.xapi(demo.key, { method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers.location).toBeUndefined();
    expect(response.json()).toHaveProperty('statements');
  });

  it('stores a statement POSTed to a doubled-slash endpoint and reads it back from the plain one', async () => {
    const posted = await demo.t.xapi(demo.key, { method: 'POST', url: '/demo//xAPI//statements/', payload: statement() });
    expect(posted.statusCode).toBe(200);
    const [id] = posted.json() as string[];
    const read = await demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${id}` });
    expect(read.statusCode).toBe(200);
  });
});

describe('absolute URLs behind a proxy', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('keeps the path part of the public URL in `more` and in Store endpoints', async () => {
    t = await buildTestApp({ publicUrl: () => 'https://lrs.example.org/lrs/' });
    await t.createStore('demo');
    const key = await t.createKey('demo');
    for (let i = 0; i < 3; i++) expect((await t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() })).statusCode).toBe(200);
    const page = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements?limit=1' });
    const more = page.json().more as string;
    expect(more).toMatch(/^\/lrs\/demo\/xapi\/statements\?more=/);
    // The proxy strips its prefix: the service itself answers the rest of the URL.
    const next = await t.xapi(key, { method: 'GET', url: more.slice('/lrs'.length) });
    expect(next.statusCode).toBe(200);
    expect(next.json().statements).toHaveLength(1);
    const store = await t.admin({ method: 'GET', url: '/admin/api/stores/demo' });
    expect(store.json().endpoint).toBe('https://lrs.example.org/lrs/demo/xAPI/');
  });
});
