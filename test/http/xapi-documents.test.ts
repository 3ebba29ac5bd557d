/**
 * The document resources over HTTP: /activities/state, /activities/profile, /agents/profile
 * (xAPI 1.0.3 Communication §2.2–2.3, §2.6–2.7, §3.1; 2.0.0 §4.1.4, §4.1.6.2, §4.1.6.5–6).
 */
import { createHash } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { statement, useDemoStore, type CreatedKey } from './test-app';

const demo = useDemoStore();

const AGENT = { objectType: 'Agent', mbox: 'mailto:ada@example.com' };
const ACTIVITY = 'http://example.com/courses/module-1';

function query(params: Record<string, unknown>): string {
  const parts = Object.entries(params).map(
    ([name, value]) => `${name}=${encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))}`,
  );
  return parts.length ? `?${parts.join('&')}` : '';
}

interface DocRequest {
  method?: InjectOptions['method'];
  params?: Record<string, unknown>;
  body?: string | Buffer | object;
  contentType?: string;
  headers?: Record<string, string>;
  version?: string | null;
  base?: string;
  as?: CreatedKey;
}

function request(path: string, defaults: Record<string, unknown>, r: DocRequest = {}) {
  const headers: Record<string, string> = { ...r.headers };
  if (r.contentType) headers['content-type'] = r.contentType;
  let payload: string | Buffer | undefined;
  if (r.body !== undefined) {
    payload = typeof r.body === 'string' || Buffer.isBuffer(r.body) ? r.body : JSON.stringify(r.body);
    headers['content-type'] ??= typeof r.body === 'string' || Buffer.isBuffer(r.body) ? 'application/octet-stream' : 'application/json';
  }
  return demo.t.xapi(r.as ?? demo.key, {
    method: r.method ?? 'GET',
    url: `${r.base ?? '/demo/xAPI'}${path}${query(r.params ?? defaults)}`,
    headers,
    ...(payload === undefined ? {} : { payload }),
    version: r.version === undefined ? '1.0.3' : r.version,
  });
}

const stateParams = { activityId: ACTIVITY, agent: AGENT, stateId: 'bookmark' };
const state = (r: DocRequest = {}) => request('/activities/state', stateParams, r);
const activityProfile = (r: DocRequest = {}) => request('/activities/profile', { activityId: ACTIVITY, profileId: 'glossary' }, r);
const agentProfile = (r: DocRequest = {}) => request('/agents/profile', { agent: AGENT, profileId: 'preferences' }, r);

describe('State Resource', () => {
  it('stores a document with PUT (204) and returns it with GET (200), its content type, a quoted SHA-1 ETag and Last-Modified', async () => {
    const put = await state({ method: 'PUT', body: { page: 3 } });
    expect(put.statusCode).toBe(204);
    const get = await state();
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual({ page: 3 });
    expect(get.headers['content-type']).toBe('application/json');
    // 1.0.3 §3.1.s4.b2 / b4.
    expect(get.headers.etag).toBe(`"${createHash('sha1').update('{"page":3}').digest('hex')}"`);
    expect(Date.parse(get.headers['last-modified'] as string)).not.toBeNaN();
    expect(get.headers['x-experience-api-version']).toBe('1.0.3');
  });

  it('stores any content type as bytes and returns it unchanged with that Content-Type', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    expect((await state({ method: 'PUT', body: png, contentType: 'image/png' })).statusCode).toBe(204);
    const image = await state();
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.equals(png)).toBe(true);

    const text = { ...stateParams, stateId: 'note' };
    expect((await state({ method: 'PUT', params: text, body: 'plain words', contentType: 'text/plain' })).statusCode).toBe(204);
    const note = await state({ params: text });
    expect(note.body).toBe('plain words');
    expect(note.headers['content-type']).toMatch(/^text\/plain/);

    const form = { ...stateParams, stateId: 'form' };
    expect((await state({ method: 'PUT', params: form, body: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' })).statusCode).toBe(204);
    expect((await state({ params: form })).body).toBe('a=1&b=2');
  });

  it('serves a stored text/html document as inert data: nosniff and a sandboxing CSP', async () => {
    const page = { ...stateParams, stateId: 'page' };
    const html = '<script>fetch("/admin/api/stores")</script>';
    expect((await state({ method: 'PUT', params: page, body: html, contentType: 'text/html' })).statusCode).toBe(204);
    const served = await state({ params: page });
    expect(served.body).toBe(html);
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-security-policy']).toMatch(/^sandbox; default-src 'none'/);
  });

  it('keeps parsing JSON statements after documents took raw bodies', async () => {
    await state({ method: 'PUT', body: 'x', contentType: 'text/plain' });
    const posted = await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() });
    expect(posted.statusCode).toBe(200);
  });

  it('treats a POST where no document exists as a PUT, and merges a POSTed JSON object into a JSON document one level deep', async () => {
    expect((await state({ method: 'POST', body: { car: { make: 'Ford' }, driver: 'Dale' } })).statusCode).toBe(204);
    expect((await state({ method: 'POST', body: { car: { model: 'Ram' } } })).statusCode).toBe(204);
    expect((await state()).json()).toEqual({ car: { model: 'Ram' }, driver: 'Dale' });
  });

  it('answers 400 to a POST that cannot be merged, and leaves the document as it was', async () => {
    await state({ method: 'PUT', body: { a: 1 } });
    const before = await state();
    expect((await state({ method: 'POST', body: 'abc', contentType: 'text/plain' })).statusCode).toBe(400);
    expect((await state({ method: 'POST', body: '{"b":2}{', contentType: 'application/json' })).statusCode).toBe(400);
    expect((await state({ method: 'POST', body: [1, 2] })).statusCode).toBe(400);
    const after = await state();
    expect(after.body).toBe(before.body);
    expect(after.headers.etag).toBe(before.headers.etag);

    const binary = { ...stateParams, stateId: 'binary' };
    await state({ method: 'PUT', params: binary, body: '/ asdf / undefined', contentType: 'application/octet-stream' });
    const refused = await state({ method: 'POST', params: binary, body: { b: 2 } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('invalid_document');
    expect((await state({ params: binary })).body).toBe('/ asdf / undefined');
  });

  it('answers 404 for a document that does not exist', async () => {
    const response = await state({ params: { ...stateParams, stateId: 'missing' } });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('document_not_found');
  });

  it('lists the stateIds of an agent in an activity without stateId, limited by since', async () => {
    const { stateId: _id, ...context } = stateParams;
    await state({ method: 'PUT', params: { ...context, stateId: 'a' }, body: { a: 1 } });
    await state({ method: 'PUT', params: { ...context, stateId: 'b' }, body: { b: 1 } });
    await state({ method: 'PUT', params: { ...context, stateId: 'c', agent: { mbox: 'mailto:bob@example.com' } }, body: {} });
    const list = await state({ params: context });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual(['a', 'b']);
    const since = new Date(Date.now() + 60_000).toISOString();
    expect((await state({ params: { ...context, since } })).json()).toEqual([]);
    expect((await state({ params: { ...context, since: new Date(Date.now() - 60_000).toISOString() } })).json()).toEqual(['a', 'b']);
  });

  it('keeps documents of different registrations apart, and lists them all without registration', async () => {
    const registration = '5f1a0c3e-8b7d-4e2a-9c1f-0a2b3c4d5e6f';
    await state({ method: 'PUT', params: { ...stateParams, registration }, body: { attempt: 2 } });
    expect((await state()).statusCode).toBe(404);
    expect((await state({ params: { ...stateParams, registration: registration.toUpperCase() } })).json()).toEqual({ attempt: 2 });
    const { stateId: _id, ...context } = stateParams;
    expect((await state({ params: context })).json()).toEqual(['bookmark']);
  });

  it('deletes one document (204), and every document of the agent in the activity without stateId', async () => {
    const { stateId: _id, ...context } = stateParams;
    await state({ method: 'PUT', params: { ...context, stateId: 'a' }, body: {} });
    await state({ method: 'PUT', params: { ...context, stateId: 'b', registration: '5f1a0c3e-8b7d-4e2a-9c1f-0a2b3c4d5e6f' }, body: {} });
    await state({ method: 'PUT', params: { ...context, stateId: 'c', activityId: 'http://example.com/other' }, body: {} });
    expect((await state({ method: 'DELETE', params: { ...context, stateId: 'a' } })).statusCode).toBe(204);
    expect((await state({ params: { ...context, stateId: 'a' } })).statusCode).toBe(404);
    await state({ method: 'PUT', params: { ...context, stateId: 'a' }, body: {} });
    expect((await state({ method: 'DELETE', params: context })).statusCode).toBe(204);
    expect((await state({ params: context })).json()).toEqual([]);
    expect((await state({ params: { ...context, activityId: 'http://example.com/other' } })).json()).toEqual(['c']);
    expect((await state({ method: 'DELETE', params: { ...context, stateId: 'never-stored' } })).statusCode).toBe(204);
  });

  it.each([
    ['activityId', { agent: AGENT, stateId: 'x' }],
    ['agent', { activityId: ACTIVITY, stateId: 'x' }],
    ['stateId', { activityId: ACTIVITY, agent: AGENT }],
  ])('rejects a PUT without %s with 400 naming it', async (field, params) => {
    const response = await state({ method: 'PUT', params, body: {} });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_parameter', field });
  });

  it.each([
    ['activityId', { activityId: 'no scheme' }],
    ['agent', { agent: 'not JSON' }],
    ['registration', { registration: 'true' }],
  ])('rejects an invalid %s with 400 naming it, on every method', async (field, override) => {
    for (const method of ['GET', 'PUT', 'POST', 'DELETE'] as const) {
      const response = await state({ method, params: { ...stateParams, ...override }, ...(method === 'PUT' || method === 'POST' ? { body: {} } : {}) });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.field).toBe(field);
    }
  });

  it('rejects an agent parameter whose JSON is broken by its encoding', async () => {
    const agent = encodeURIComponent(JSON.stringify(AGENT)).replace('%3A', '%22');
    const response = await demo.t.xapi(demo.key, {
      method: 'POST',
      url: `/demo/xAPI/activities/state?activityId=${encodeURIComponent(ACTIVITY)}&stateId=x&agent=${agent}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('agent');
  });

  it('answers HEAD like GET, without a body', async () => {
    await state({ method: 'PUT', body: { page: 3 } });
    const head = await state({ method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.etag).toBe((await state()).headers.etag);
  });

  it('answers 400 without the version header', async () => {
    expect((await state({ version: null })).statusCode).toBe(400);
  });
});

describe('concurrency (1.0.3 Communication §3.1; 2.0.0 §4.1.4)', () => {
  it('answers 412 when If-Match does not match the current ETag, and changes nothing', async () => {
    await agentProfile({ method: 'PUT', body: { a: 1 }, headers: { 'if-none-match': '*' } });
    const etag = (await agentProfile()).headers.etag as string;
    for (const method of ['PUT', 'POST', 'DELETE'] as const) {
      const response = await agentProfile({ method, body: method === 'DELETE' ? undefined : { a: 2 }, headers: { 'if-match': '"1234"' } });
      expect(response.statusCode).toBe(412);
      expect(response.json().error.code).toBe('precondition_failed');
    }
    expect((await agentProfile()).headers.etag).toBe(etag);
  });

  it('accepts a PUT, POST and DELETE whose If-Match carries the current ETag', async () => {
    await activityProfile({ method: 'PUT', body: { a: 1 }, headers: { 'if-none-match': '*' } });
    let etag = (await activityProfile()).headers.etag as string;
    expect((await activityProfile({ method: 'PUT', body: { a: 2 }, headers: { 'if-match': etag } })).statusCode).toBe(204);
    etag = (await activityProfile()).headers.etag as string;
    expect((await activityProfile({ method: 'POST', body: { b: 3 }, headers: { 'if-match': etag } })).statusCode).toBe(204);
    expect((await activityProfile()).json()).toEqual({ a: 2, b: 3 });
    etag = (await activityProfile()).headers.etag as string;
    expect((await activityProfile({ method: 'DELETE', headers: { 'if-match': etag } })).statusCode).toBe(204);
    expect((await activityProfile()).statusCode).toBe(404);
  });

  it('answers 412 to If-None-Match: * when the document exists, and creates it when it does not', async () => {
    expect((await activityProfile({ method: 'PUT', body: { a: 1 }, headers: { 'if-none-match': '*' } })).statusCode).toBe(204);
    expect((await activityProfile({ method: 'PUT', body: { a: 2 }, headers: { 'if-none-match': '*' } })).statusCode).toBe(412);
    expect((await activityProfile()).json()).toEqual({ a: 1 });
  });

  it('answers 409 with an explanation to a PUT without either header onto an existing profile document, in both versions', async () => {
    for (const version of ['1.0.3', '2.0.0']) {
      for (const resource of [activityProfile, agentProfile]) {
        await resource({ method: 'POST', body: { a: 1 }, version });
        const response = await resource({ method: 'PUT', body: { a: 2 }, version });
        expect(response.statusCode).toBe(409);
        expect(response.json().error.message).toMatch(/If-Match/);
        expect((await resource()).json()).toEqual({ a: 1 });
      }
    }
  });

  it('answers 400 to a 1.0.3 PUT of a new profile document without either header, and accepts it under 2.0.0', async () => {
    const response = await agentProfile({ method: 'PUT', body: { a: 1 } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('precondition_required');
    expect((await agentProfile({ method: 'PUT', body: { a: 1 }, version: '2.0.0' })).statusCode).toBe(204);
  });

  it('lets a 1.0.3 client overwrite a State document without headers; answers 409 under 2.0.0', async () => {
    await state({ method: 'PUT', body: { a: 1 } });
    expect((await state({ method: 'PUT', body: { a: 2 } })).statusCode).toBe(204);
    expect((await state({ method: 'PUT', body: { a: 3 }, version: '2.0.0' })).statusCode).toBe(409);
    expect((await state()).json()).toEqual({ a: 2 });
  });

  it('applies concurrent POSTs one after another, losing neither', async () => {
    await state({ method: 'PUT', body: {} });
    const posts = Array.from({ length: 10 }, (_, i) => state({ method: 'POST', body: { [`k${i}`]: i } }));
    expect((await Promise.all(posts)).map((r) => r.statusCode)).toEqual(Array(10).fill(204));
    expect(Object.keys((await state()).json() as object)).toHaveLength(10);
  });
});

describe('profile resources', () => {
  it('lists profile ids without profileId, limited by since', async () => {
    await agentProfile({ method: 'PUT', body: {}, headers: { 'if-none-match': '*' } });
    await agentProfile({ method: 'PUT', params: { agent: AGENT, profileId: 'other' }, body: {}, headers: { 'if-none-match': '*' } });
    expect((await agentProfile({ params: { agent: AGENT } })).json()).toEqual(['other', 'preferences']);
    expect((await activityProfile({ params: { activityId: ACTIVITY } })).json()).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await agentProfile({ params: { agent: AGENT, since: future } })).json()).toEqual([]);
  });

  it('finds an agent profile by any form of the same identifier', async () => {
    await agentProfile({ method: 'POST', body: { theme: 'dark' } });
    const sameAgent = { agent: { mbox: 'mailto:ada@EXAMPLE.com', name: 'Ada' }, profileId: 'preferences' };
    expect((await agentProfile({ params: sameAgent })).json()).toEqual({ theme: 'dark' });
  });

  it('rejects DELETE and PUT without profileId with 400 naming it', async () => {
    const response = await activityProfile({ method: 'DELETE', params: { activityId: ACTIVITY } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('profileId');
  });
});

describe('Stores, keys and addresses', () => {
  it('keeps the documents of each Store apart, and deletes them with their Store', async () => {
    await demo.t.createStore('other');
    const otherKey = await demo.t.createKey('other');
    await state({ method: 'PUT', body: { mine: true } });
    await state({ method: 'PUT', body: { theirs: true }, base: '/other/xAPI', as: otherKey });
    expect((await state()).json()).toEqual({ mine: true });
    expect((await state({ base: '/other/xAPI', as: otherKey })).json()).toEqual({ theirs: true });

    expect((await demo.t.admin({ method: 'DELETE', url: '/admin/api/stores/other' })).statusCode).toBeLessThan(300);
    await demo.t.createStore('other');
    const newKey = await demo.t.createKey('other');
    expect((await state({ base: '/other/xAPI', as: newKey })).statusCode).toBe(404);
    expect((await state()).json()).toEqual({ mine: true });
  });

  it('serves the earlier /xapi address for the key\'s Store', async () => {
    await state({ method: 'PUT', body: { here: 1 } });
    expect((await state({ base: '/xapi' })).json()).toEqual({ here: 1 });
  });

  it('answers 403 to a key without the state or profile scope, and lets all/read keys read', async () => {
    const writer = await demo.t.createKey('demo', { name: 'statements only', scopes: ['statements/write'] });
    expect((await state({ method: 'PUT', body: {}, as: writer })).statusCode).toBe(403);
    expect((await agentProfile({ as: writer })).statusCode).toBe(403);
    await state({ method: 'PUT', body: { a: 1 } });
    const reader = await demo.t.createKey('demo', { name: 'reader', scopes: ['all/read'] });
    expect((await state({ as: reader })).statusCode).toBe(200);
    expect((await state({ method: 'DELETE', as: reader })).statusCode).toBe(403);
  });
});
