/**
 * A Store's own limits: set with `PATCH /admin/api/stores/<slug> {"limits": …}`, shown by GET,
 * kept across a restart, and applied to that Store's requests only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import { buildServer } from '../../src-server/http/build-server';
import { ADMIN_TOKEN, PUBLIC_URL, buildTestApp, statement, type CreatedKey, type TestApp } from './test-app';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function twoStores(): Promise<{ t: TestApp; key: CreatedKey; otherKey: CreatedKey }> {
  t = await buildTestApp();
  await t.createStore('demo');
  await t.createStore('other');
  return { t, key: await t.createKey('demo'), otherKey: await t.createKey('other') };
}

const patch = (app: TestApp, slug: string, payload: unknown) => app.admin({ method: 'PATCH', url: `/admin/api/stores/${slug}`, payload: payload as object });
const post = (app: TestApp, key: CreatedKey, slug: string, payload: unknown) =>
  app.xapi(key, { method: 'POST', url: `/${slug}/xAPI/statements`, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });

describe("a Store's own limits", () => {
  it('are set, shown, merged and returned to the service values by PATCH', async () => {
    const { t } = await twoStores();
    const set = await patch(t, 'demo', { limits: { maxBatch: 2, ratePerSecond: 50 } });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ name: 'Store demo', limits: { maxBatch: 2, ratePerSecond: 50 } });
    expect((await patch(t, 'demo', { name: 'Renamed', limits: { ratePerSecond: null, rateBurst: 10 } })).json()).toMatchObject({
      name: 'Renamed',
      limits: { maxBatch: 2, rateBurst: 10 },
    });
    const shown = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo' })).json();
    expect(shown.limits).toEqual({ maxBatch: 2, rateBurst: 10 });
    expect((await patch(t, 'demo', { limits: null })).json().limits).toEqual({});
    expect((await t.admin({ method: 'GET', url: '/admin/api/stores/other' })).json().limits).toEqual({});
  });

  it('refuses a value out of range or an unknown limit with 400 naming the field', async () => {
    const { t } = await twoStores();
    const zero = await patch(t, 'demo', { limits: { maxBatch: 0 } });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error.field).toBe('limits.maxBatch');
    const huge = await patch(t, 'demo', { limits: { maxBodyBytes: 1024 * 1024 * 1024 } });
    expect(huge.json().error.field).toBe('limits.maxBodyBytes');
    // Depth and string length protect the whole process: they are the service's only.
    expect((await patch(t, 'demo', { limits: { maxJsonDepth: 10 } })).statusCode).toBe(400);
  });

  it('apply to that Store only: batch size, body size and rate', async () => {
    const { t, key, otherKey } = await twoStores();
    await patch(t, 'demo', { limits: { maxBatch: 2, maxBodyBytes: 65536, ratePerSecond: 1, rateBurst: 10 } });
    expect((await post(t, key, 'demo', [statement(), statement(), statement()])).statusCode).toBe(413);
    expect((await post(t, otherKey, 'other', [statement(), statement(), statement()])).statusCode).toBe(200);
    const big = statement({ result: { response: 'x'.repeat(70_000) } });
    const refused = await post(t, key, 'demo', big);
    expect(refused.statusCode).toBe(413);
    expect(refused.json().error.message).toMatch(/at most 65,536 bytes/);
    expect((await post(t, otherKey, 'other', big)).statusCode).toBe(200);
    // The earlier /xapi address finds the Store by the key.
    const viaEarlier = await t.xapi(key, { method: 'POST', url: '/xapi/statements', payload: JSON.stringify(big), headers: { 'content-type': 'application/json' } });
    expect(viaEarlier.statusCode).toBe(413);
    // Sent at once: far more than the burst of 10 left at 1 per second.
    const burst = await Promise.all(Array.from({ length: 20 }, () => post(t, key, 'demo', statement())));
    expect(burst.filter((response) => response.statusCode === 429).length).toBeGreaterThan(0);
    const others = await Promise.all(Array.from({ length: 20 }, () => post(t, otherKey, 'other', statement())));
    expect(others.every((response) => response.statusCode === 200)).toBe(true);
  });

  it('are kept across a restart', async () => {
    const { t: first } = await twoStores();
    await patch(first, 'demo', { limits: { maxBatch: 7, rejectedRetentionDays: 3 } });
    await first.app.close();
    await first.storage.close();
    t = undefined;
    const storage = await first.reopenStorage();
    try {
      const app = buildServer({ storage, adminToken: resolveAdminToken(first.dataDir, ADMIN_TOKEN).check, publicUrl: () => PUBLIC_URL });
      const shown = await app.inject({ method: 'GET', url: '/admin/api/stores/demo', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(shown.json().limits).toEqual({ maxBatch: 7, rejectedRetentionDays: 3 });
      await app.close();
    } finally {
      await first.close();
    }
  });
});
