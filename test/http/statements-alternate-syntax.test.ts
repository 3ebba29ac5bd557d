/** The alternate request syntax of xAPI 1.0.3 Part Three §1.3 (plugins/alternate-request-syntax.ts). */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();

const FORM = 'application/x-www-form-urlencoded';
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
/** An alternate-syntax request: credentials and version travel in the form unless given as headers. */
const alternate = (method: string, fields: Record<string, string>, options: { url?: string; headers?: Record<string, string>; httpMethod?: 'POST' | 'PUT' } = {}) =>
  demo.t.app.inject({
    method: options.httpMethod ?? 'POST',
    url: options.url ?? `/demo/xAPI/statements?method=${method}`,
    headers: { 'content-type': FORM, ...options.headers },
    payload: form({ Authorization: `Basic ${demo.key.basic}`, 'X-Experience-API-Version': '1.0.3', ...fields }),
  });

describe('alternate request syntax (1.0.3)', () => {
  it('stores a statement PUT through a form, with headers and content as form fields', async () => {
    const id = randomUUID();
    const response = await alternate('PUT', { statementId: id, content: JSON.stringify(statement()) });
    expect(response.statusCode).toBe(204);
    expect((await demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${id}` })).json().id).toBe(id);
  });

  it('answers a GET through a form with the StatementResult and the consistency header', async () => {
    await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() });
    const response = await alternate('GET', { limit: '1' });
    expect(response.statusCode).toBe(200);
    expect(response.json().statements).toHaveLength(1);
    expect(response.headers['x-experience-api-consistent-through']).toBeDefined();
  });

  it('serves every resource, the document resources included', async () => {
    const agent = JSON.stringify({ mbox: 'mailto:ada@example.com' });
    const fields = { activityId: 'http://example.com/a', agent, stateId: 'bookmark' };
    expect((await alternate('PUT', { ...fields, content: '{"page":3}' }, { url: '/demo/xAPI/activities/state?method=PUT' })).statusCode).toBe(204);
    const read = await alternate('GET', fields, { url: '/demo/xAPI/activities/state?method=GET' });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ page: 3 });
  });

  it('takes credentials and version from real headers when the form leaves them out', async () => {
    const response = await demo.t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements?method=PUT',
      headers: { 'content-type': FORM, authorization: `Basic ${demo.key.basic}`, 'x-experience-api-version': '1.0.3' },
      payload: form({ statementId: randomUUID(), content: JSON.stringify(statement()) }),
    });
    expect(response.statusCode).toBe(204);
  });

  it('lets a form field override a header: an unsupported version in the form answers 400', async () => {
    const response = await alternate('PUT', { statementId: randomUUID(), 'X-Experience-API-Version': '0.8', content: JSON.stringify(statement()) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('unsupported_version');
  });

  it('answers 400 when the method parameter comes on anything but POST', async () => {
    const response = await alternate('POST', { content: JSON.stringify(statement()) }, { httpMethod: 'PUT' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('method');
  });

  it('answers 400 for any other query parameter (§1.3.s3.b4)', async () => {
    const id = randomUUID();
    const response = await alternate('PUT', { statementId: id, content: JSON.stringify(statement()) }, { url: `/demo/xAPI/statements?method=PUT&statementId=${id}` });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('statementId');
  });

  it('answers 400 for a body that is not form-encoded, or no body', async () => {
    const json = await demo.t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements?method=PUT',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ statementId: randomUUID(), content: statement() }),
    });
    expect(json.statusCode).toBe(400);
    const empty = await demo.t.app.inject({ method: 'POST', url: '/demo/xAPI/statements?method=PUT' });
    expect(empty.statusCode).toBe(400);
  });

  it('answers 400 for an unknown method and for a repeated form field', async () => {
    expect((await alternate('PATCH', {})).statusCode).toBe(400);
    const repeated = await demo.t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements?method=GET',
      headers: { 'content-type': FORM },
      payload: `Authorization=${encodeURIComponent(`Basic ${demo.key.basic}`)}&limit=1&limit=2`,
    });
    expect(repeated.statusCode).toBe(400);
  });

  it('is refused under xAPI 2.0.0, which removed it', async () => {
    const response = await alternate('PUT', { statementId: randomUUID(), 'X-Experience-API-Version': '2.0.0', content: JSON.stringify(statement()) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('2.0.0');
  });

  it('makes its own refusals readable cross-origin, and leaves preflights to CORS', async () => {
    const refused = await alternate('PATCH', {}, { headers: { origin: 'https://lms.example.com' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['access-control-allow-origin']).toBe('https://lms.example.com');
    const preflight = await demo.t.app.inject({ method: 'OPTIONS', url: '/demo/xAPI/statements?method=PUT', headers: { origin: 'https://lms.example.com' } });
    expect(preflight.statusCode).toBe(204);
  });

  it('answers 404 to the internal path typed by a client', async () => {
    expect((await demo.t.app.inject({ method: 'POST', url: '/~alternate/demo/xapi/statements' })).statusCode).toBe(404);
  });
});
