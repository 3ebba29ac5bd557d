import { describe, expect, it } from 'vitest';
import type { RefusalPageView, RefusalView } from '../../src-server/admin/contract';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();

async function storeLog(slug = 'demo', query = ''): Promise<RefusalView[]> {
  const response = await demo.t.admin({ method: 'GET', url: `/admin/api/stores/${slug}/refusals${query}` });
  expect(response.statusCode).toBe(200);
  return (response.json() as RefusalPageView).refusals;
}

async function serviceLog(): Promise<RefusalView[]> {
  const response = await demo.t.admin({ method: 'GET', url: '/admin/api/refusals' });
  expect(response.statusCode).toBe(200);
  return (response.json() as RefusalPageView).refusals;
}

/** Nothing of the key's secret, its Basic or Bearer form, or the admin token is in the log. */
function expectNoSecret(refusals: RefusalView[]): void {
  const text = JSON.stringify(refusals);
  expect(text).not.toContain(demo.key.secret);
  expect(text).not.toContain(demo.key.basic);
  expect(text).not.toContain(demo.key.token);
  expect(text.toLowerCase()).not.toContain('authorization');
}

describe('the log of refused requests', () => {
  it('keeps a request with a wrong secret in the Store\'s log: time, method, path, status, reason, key id, client, User-Agent', async () => {
    const wrong = Buffer.from(`${demo.key.id}:not-the-secret`).toString('base64');
    const response = await demo.t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements',
      headers: { authorization: `Basic ${wrong}`, 'x-experience-api-version': '1.0.3', 'user-agent': 'Storyline/3.90' },
      payload: statement(),
    });
    expect(response.statusCode).toBe(401);

    const [refusal, ...rest] = await storeLog();
    expect(rest).toEqual([]);
    expect(refusal).toMatchObject({
      method: 'POST',
      path: '/demo/xapi/statements',
      status: 401,
      code: 'unauthenticated',
      reason: response.json().error.message,
      keyId: demo.key.id,
      client: '127.0.0.1',
      userAgent: 'Storyline/3.90',
      count: 1,
    });
    expect(Date.now() - Date.parse(refusal!.at)).toBeLessThan(60_000);
    expect(JSON.stringify(refusal)).not.toContain(wrong);
    expect(JSON.stringify(refusal)).not.toContain('not-the-secret');
  });

  it('keeps a missing version header, a wrong content type and a body that is not JSON, each with the answer\'s reason', async () => {
    const noVersion = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements', version: null });
    const badType = await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', headers: { 'content-type': 'text/csv' }, payload: 'a,b' });
    const notJson = await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', headers: { 'content-type': 'application/json' }, payload: '{"actor": ' });
    expect([noVersion.statusCode, badType.statusCode, notJson.statusCode]).toEqual([400, 400, 400]); // a wrong type is 400, as ADL's suites expect

    const log = await storeLog();
    // Newest first.
    expect(log.map((r) => [r.status, r.code, r.reason])).toEqual([
      [400, notJson.json().error.code, notJson.json().error.message],
      [400, 'unsupported_media_type', badType.json().error.message],
      [400, 'unsupported_version', noVersion.json().error.message],
    ]);
    expect(log.every((r) => r.keyId === demo.key.id)).toBe(true);
    expectNoSecret(log);
  });

  it('keeps a 413 and a 429 of the Store\'s own limits', async () => {
    const patch = await demo.t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { limits: { maxBatch: 1, ratePerSecond: 1, rateBurst: 2 } } });
    expect(patch.statusCode).toBe(200);
    const tooMany = await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: [statement(), statement()] });
    expect(tooMany.statusCode).toBe(413);
    let limited = tooMany;
    for (let i = 0; i < 5 && limited.statusCode !== 429; i++) {
      limited = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements?limit=1' });
    }
    expect(limited.statusCode).toBe(429);

    const log = await storeLog();
    expect(log.find((r) => r.status === 413)).toMatchObject({ code: 'batch_too_large', reason: tooMany.json().error.message, method: 'POST' });
    expect(log.find((r) => r.status === 429)).toMatchObject({ code: 'rate_limited', path: '/demo/xapi/statements?limit=1', keyId: demo.key.id });
    expectNoSecret(log);
  });

  it('coalesces a flood of identical refusals into one entry with a count', async () => {
    await demo.t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { limits: { ratePerSecond: 1, rateBurst: 1 } } });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode);
    const refused = statuses.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThanOrEqual(45);

    const log = (await storeLog()).filter((r) => r.status === 429);
    expect(log.reduce((sum, r) => sum + r.count, 0)).toBe(refused);
    expect(log.length).toBeLessThan(5);
  });

  it('keeps an unknown path under a Store in that Store\'s log', async () => {
    const response = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statement' });
    expect(response.statusCode).toBe(404);
    const [refusal] = await storeLog();
    expect(refusal).toMatchObject({ status: 404, code: 'resource_not_found', path: '/demo/xapi/statement', reason: response.json().error.message });
  });

  it('keeps requests to an unknown Store, and admin requests with a wrong token, in the service-wide log, not a Store\'s', async () => {
    const unknownStore = await demo.t.xapi(demo.key, { method: 'GET', url: '/nosuch/xAPI/statements' });
    expect(unknownStore.statusCode).toBeGreaterThanOrEqual(400);
    const badToken = await demo.t.app.inject({ method: 'GET', url: '/admin/api/stores', headers: { authorization: 'Bearer wrong-token-123' } });
    expect(badToken.statusCode).toBe(401);

    const log = await serviceLog();
    expect(log.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/admin/api/stores', 401],
      ['GET', '/nosuch/xapi/statements', unknownStore.statusCode],
    ]);
    expect(log[0]!.keyId).toBeNull();
    expect(JSON.stringify(log)).not.toContain('wrong-token-123');
    expect(await storeLog()).toEqual([]);
  });

  it('does not log what the rejected-statement log already holds, lookups of nothing, or document concurrency answers', async () => {
    const invalid = await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement({ verb: { id: 'not an IRI' } }) });
    expect(invalid.statusCode).toBe(400);
    const missing = await demo.t.xapi(demo.key, { method: 'GET', url: '/demo/xAPI/statements?statementId=6f0f1c9a-2a3b-4c5d-8e9f-0a1b2c3d4e5f' });
    expect(missing.statusCode).toBe(404);
    const params = `activityId=${encodeURIComponent('http://example.com/a')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:ada@example.com' }))}&stateId=s`;
    const put = await demo.t.xapi(demo.key, { method: 'PUT', url: `/demo/xAPI/activities/state?${params}`, headers: { 'content-type': 'application/json' }, payload: '{"a":1}' });
    expect(put.statusCode).toBe(204);
    const stale = await demo.t.xapi(demo.key, {
      method: 'PUT',
      url: `/demo/xAPI/activities/state?${params}`,
      headers: { 'content-type': 'application/json', 'if-match': '"0000"' },
      payload: '{"a":2}',
    });
    expect(stale.statusCode).toBe(412);

    expect(await storeLog()).toEqual([]);
    expect(await serviceLog()).toEqual([]);
  });

  it('never keeps credentials sent in the alternate request syntax or a query string', async () => {
    const form = new URLSearchParams({ Authorization: `Basic ${demo.key.basic}`, 'X-Experience-API-Version': '9.9' }).toString();
    const alternate = await demo.t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements?method=GET',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form,
    });
    expect(alternate.statusCode).toBe(400);
    const query = await demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/nothing?token=${demo.key.token}&secret=${demo.key.secret}&x=1` });
    expect(query.statusCode).toBe(404);

    const log = await storeLog();
    // The alternate request is logged once, as the request it stands for.
    expect(log.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/demo/xapi/nothing?token=%28removed%29&secret=%28removed%29&x=1', 404],
      ['GET', '/demo/xapi/statements', 400],
    ]);
    expectNoSecret(log);
  });

  it('pages newest first with limit and cursor, and survives a restart of the storage', async () => {
    for (let i = 0; i < 5; i++) await demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/missing-${i}` });
    const first = await demo.t.admin({ method: 'GET', url: '/admin/api/stores/demo/refusals?limit=2' });
    const page = first.json() as RefusalPageView;
    expect(page.refusals.map((r) => r.path)).toEqual(['/demo/xapi/missing-4', '/demo/xapi/missing-3']);
    const second = (await demo.t.admin({ method: 'GET', url: `/admin/api/stores/demo/refusals?limit=2&cursor=${page.next}` })).json() as RefusalPageView;
    expect(second.refusals.map((r) => r.path)).toEqual(['/demo/xapi/missing-2', '/demo/xapi/missing-1']);
    const bad = await demo.t.admin({ method: 'GET', url: '/admin/api/stores/demo/refusals?limit=0' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('limit');
    const unknown = await demo.t.admin({ method: 'GET', url: '/admin/api/stores/nosuch/refusals' });
    expect(unknown.statusCode).toBe(404);
  });
});
