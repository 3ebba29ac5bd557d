/**
 * The request-side limits over HTTP (src-server/http/plugins/: body-size-limit, json-body-limits,
 * key-rate-limit, body-content-limits, failed-credentials): body size, statements per batch,
 * attachment size, JSON depth, string length, requests per second per key, and the backoff after
 * failed credentials. Every refusal is a 4xx in the JSON error shape and stores nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMIT_DEFAULTS, type ServiceLimits } from '../../src-server/limits/service-limits';
import { MULTIPART_TYPE, attachmentFor, attachmentPart, multipartBody } from './statement-requests';
import { ADMIN_TOKEN, buildTestApp, statement, type CreatedKey, type TestApp } from './test-app';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function setUp(limits: Partial<ServiceLimits> = {}): Promise<{ t: TestApp; key: CreatedKey }> {
  t = await buildTestApp({ limits: { ...LIMIT_DEFAULTS, ...limits } });
  await t.createStore('demo');
  return { t, key: await t.createKey('demo') };
}

const postStatements = (app: TestApp, key: CreatedKey, payload: unknown, headers: Record<string, string> = {}) =>
  app.xapi(key, {
    method: 'POST',
    url: '/demo/xAPI/statements',
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
    headers: { 'content-type': 'application/json', ...headers },
  });

/** Every record the Statement Explorer shows for the Store: accepted and rejected. */
async function recorded(app: TestApp): Promise<number> {
  const response = await app.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' });
  return (response.json() as { records: unknown[] }).records.length;
}

const nestedValue = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('request body size', () => {
  it('refuses a statements body over the limit with 413, closes the connection and stores nothing', async () => {
    const { t, key } = await setUp({ maxBodyBytes: 65536 });
    const big = statement({ result: { response: 'x'.repeat(70_000) } });
    const response = await postStatements(t, key, big);
    expect(response.statusCode).toBe(413);
    expect(response.headers.connection).toBe('close');
    expect(response.json().error).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(response.json().error.message).toMatch(/at most 65,536 bytes/);
    expect(await recorded(t)).toBe(0);
    expect((await postStatements(t, key, statement())).statusCode).toBe(200);
  });

  it('refuses a document, a multipart body and an alternate-syntax form over the limit too', async () => {
    const { t, key } = await setUp({ maxBodyBytes: 65536 });
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:ada@example.com' }));
    const document = await t.xapi(key, {
      method: 'PUT',
      url: `/demo/xAPI/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=${agent}&stateId=s`,
      payload: Buffer.alloc(70_000),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(document.statusCode).toBe(413);
    const multipart = await postStatements(t, key, multipartBody(statement(), [attachmentPart('y'.repeat(70_000))]), { 'content-type': MULTIPART_TYPE });
    expect(multipart.statusCode).toBe(413);
    const form = new URLSearchParams({ Authorization: `Basic ${key.basic}`, 'X-Experience-API-Version': '1.0.3', content: 'z'.repeat(70_000) });
    const alternate = await t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements?method=POST',
      payload: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(alternate.statusCode).toBe(413);
    expect(alternate.json().error.code).toBe('payload_too_large');
  });
});

describe('statements per batch', () => {
  it('accepts a batch at the limit and refuses one more with 413 naming the batch size', async () => {
    const { t, key } = await setUp({ maxBatch: 3 });
    expect((await postStatements(t, key, [statement(), statement(), statement()])).statusCode).toBe(200);
    const response = await postStatements(t, key, [statement(), statement(), statement(), statement()]);
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ code: 'batch_too_large' });
    expect(response.json().error.message).toMatch(/holds 4 statements.*at most 3/);
    expect(await recorded(t)).toBe(3);
  });

  it('counts the statements of a multipart/mixed request too', async () => {
    const { t, key } = await setUp({ maxBatch: 1 });
    const response = await postStatements(t, key, multipartBody([statement(), statement()]), { 'content-type': MULTIPART_TYPE });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('batch_too_large');
  });
});

describe('attachment size', () => {
  it('refuses an attachment over the limit with 413 naming the part, and accepts one at the limit', async () => {
    const { t, key } = await setUp({ maxAttachmentBytes: 10 });
    const fits = '0123456789';
    const ok = multipartBody(statement({ attachments: [attachmentFor(fits)] }), [attachmentPart(fits)]);
    expect((await postStatements(t, key, ok, { 'content-type': MULTIPART_TYPE })).statusCode).toBe(200);
    const large = '0123456789X';
    const tooLarge = multipartBody(statement({ attachments: [attachmentFor(large)] }), [attachmentPart(large)]);
    const response = await postStatements(t, key, tooLarge, { 'content-type': MULTIPART_TYPE });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe('attachment_too_large');
    expect(response.json().error.message).toMatch(/Part 2 .* is 11 bytes.*at most 10 bytes/);
  });
});

describe('JSON nesting depth', () => {
  it('refuses an extension nested deeper than the limit with 400 naming the statement and the field', async () => {
    const { t, key } = await setUp({ maxJsonDepth: 10 });
    const deep = JSON.parse(nestedValue(8)) as unknown;
    const body = [statement(), statement({ context: { extensions: { 'http://example.com/x': deep } } })];
    const response = await postStatements(t, key, body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'json_too_deep',
      statementIndex: 1,
      // Depth 11 (of 10) is reached by the seventh array: [batch] > statement > context > extensions > x > six more.
      field: 'context.extensions.http://example.com/x[0][0][0][0][0][0]',
    });
    expect(await recorded(t)).toBe(0);
  });

  it('answers 400, not a crash, to a body of a hundred thousand brackets', async () => {
    const { t, key } = await setUp();
    const response = await postStatements(t, key, nestedValue(100_000));
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('json_too_deep');
    expect(await recorded(t)).toBe(0);
  });

  it('checks a multipart statement part and a JSON document the same way', async () => {
    const { t, key } = await setUp({ maxJsonDepth: 10 });
    const deep = statement({ result: { extensions: { 'http://example.com/x': JSON.parse(nestedValue(9)) as unknown } } });
    const multipart = await postStatements(t, key, multipartBody(deep), { 'content-type': MULTIPART_TYPE });
    expect(multipart.statusCode).toBe(400);
    expect(multipart.json().error.code).toBe('json_too_deep');
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:ada@example.com' }));
    const document = await t.xapi(key, {
      method: 'POST',
      url: `/demo/xAPI/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=${agent}&stateId=s`,
      payload: `{"a": ${nestedValue(20)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(document.statusCode).toBe(400);
    expect(document.json().error).toMatchObject({ code: 'json_too_deep', field: 'a[0][0][0][0][0][0][0][0][0]' });
  });
});

describe('string length', () => {
  it('refuses a string longer than the limit with 400 naming the field', async () => {
    const { t, key } = await setUp({ maxStringLength: 300 });
    expect((await postStatements(t, key, statement({ result: { response: 'x'.repeat(300) } }))).statusCode).toBe(200);
    const response = await postStatements(t, key, statement({ result: { response: 'x'.repeat(301) } }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'string_too_long', field: 'result.response' });
    expect(response.json().error.message).toMatch(/301 characters.*at most 300/);
  });
});

describe('requests per second per key', () => {
  it('answers 429 with Retry-After and the JSON error once a key has used its burst', async () => {
    const { t, key } = await setUp({ ratePerSecond: 1, rateBurst: 3 });
    // Sent at once, so that the refill (one a second) cannot keep up however slow the machine.
    const responses = await Promise.all(Array.from({ length: 10 }, () => postStatements(t, key, statement())));
    const accepted = responses.filter((response) => response.statusCode === 200).length;
    const limited = responses.filter((response) => response.statusCode === 429);
    expect(accepted).toBeGreaterThanOrEqual(3);
    expect(limited.length).toBe(10 - accepted);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]!.headers['retry-after']).toBe('1');
    expect(limited[0]!.json().error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(await recorded(t)).toBe(accepted);
  });

  it('does not slow another key, nor the admin API', async () => {
    const { t, key } = await setUp({ ratePerSecond: 1, rateBurst: 1 });
    const other = await t.createKey('demo', { name: 'other' });
    const first = await Promise.all(Array.from({ length: 5 }, () => postStatements(t, key, statement())));
    expect(first.some((response) => response.statusCode === 429)).toBe(true);
    expect((await postStatements(t, other, statement())).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await t.admin({ method: 'GET', url: '/admin/api/stores/demo' })).statusCode).toBe(200);
  });
});

describe('backoff after failed credentials', () => {
  const wrong = (key: CreatedKey): CreatedKey => ({ ...key, basic: Buffer.from(`${key.id}:wrong-secret`).toString('base64') });
  const fromAddress = (app: TestApp, key: CreatedKey, remoteAddress: string) =>
    app.xapi(key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${randomUUID()}`, remoteAddress });

  it('answers 429 to wrong secrets from an address after ten, while the right secret from it still passes', async () => {
    const { t, key } = await setUp();
    for (let i = 0; i < 10; i++) expect((await fromAddress(t, wrong(key), '10.0.0.1')).statusCode).toBe(401);
    const blocked = await fromAddress(t, wrong(key), '10.0.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error.code).toBe('too_many_failed_attempts');
    expect(blocked.headers['www-authenticate']).toBeUndefined();
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    // Key ids are public: someone else's wrong secrets never lock the key's owner out.
    expect((await fromAddress(t, key, '10.0.0.1')).statusCode).toBe(404);
    expect((await fromAddress(t, key, '10.0.0.2')).statusCode).toBe(404);
    const other = await t.createKey('demo', { name: 'other course' });
    expect((await fromAddress(t, other, '10.0.0.1')).statusCode).toBe(404);
  });

  it('counts failures per address, whatever key ids they name, and caps the wait at 15 minutes', async () => {
    const { t, key } = await setUp();
    const unknownIds = Array.from({ length: 10 }, (_, i) => ({ ...key, basic: Buffer.from(`lore_test_guess${i}:x`).toString('base64') }));
    for (const guess of unknownIds) expect((await fromAddress(t, guess, '10.0.0.3')).statusCode).toBe(401);
    let retryAfter = 0;
    for (let i = 0; i < 12; i++) {
      const response = await fromAddress(t, wrong(key), '10.0.0.3');
      expect(response.statusCode).toBe(429);
      retryAfter = Number(response.headers['retry-after']);
    }
    expect(retryAfter).toBe(15 * 60);
    expect((await fromAddress(t, wrong(key), '10.0.0.4')).statusCode).toBe(401);
  });

  it('does the same for the admin token', async () => {
    t = await buildTestApp();
    const admin = (token: string, remoteAddress: string) =>
      t!.app.inject({ method: 'GET', url: '/admin/api/stores', headers: { authorization: `Bearer ${token}` }, remoteAddress });
    for (let i = 0; i < 10; i++) expect((await admin('not-the-admin-token', '10.0.0.1')).statusCode).toBe(401);
    expect((await admin('not-the-admin-token', '10.0.0.1')).statusCode).toBe(429);
    expect((await admin(ADMIN_TOKEN, '10.0.0.1')).statusCode).toBe(200);
    expect((await admin(ADMIN_TOKEN, '10.0.0.2')).statusCode).toBe(200);
  });

  it('forgets the failures of an address once its credentials are accepted', async () => {
    const { t, key } = await setUp();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 9; i++) expect((await fromAddress(t, wrong(key), '10.0.0.1')).statusCode).toBe(401);
      expect((await fromAddress(t, key, '10.0.0.1')).statusCode).toBe(404);
    }
  });
});
