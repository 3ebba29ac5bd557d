import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminOperationFor, buildTestApp, checkAgainstContract, statement, type TestApp } from './test-app';

let t: TestApp;

beforeEach(async () => {
  t = await buildTestApp();
});
afterEach(() => t.close());

describe('admin authentication', () => {
  it('refuses the admin API without the admin token', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/admin/api/stores' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/Bearer/);
  });

  it('refuses a wrong admin token', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/admin/api/stores', headers: { authorization: 'Bearer wrong' } });
    expect(response.statusCode).toBe(401);
  });

  it('refuses an API key in place of the admin token', async () => {
    await t.createStore('demo');
    const key = await t.createKey('demo');
    const response = await t.app.inject({ method: 'GET', url: '/admin/api/stores', headers: { authorization: `Bearer ${key.token}` } });
    expect(response.statusCode).toBe(401);
  });
});

describe('Stores', () => {
  it('creates a Store with 201 and shows its endpoint', async () => {
    const response = await t.admin({
      method: 'POST',
      url: '/admin/api/stores',
      payload: { slug: 'demo', name: 'Demo course', environment: 'test' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ slug: 'demo', name: 'Demo course', environment: 'test', endpoint: 'http://127.0.0.1:8411/demo/xAPI/' });
  });

  it.each([
    ['a', 'too short'],
    ['Demo', 'uppercase'],
    ['de mo', 'space'],
    ['-demo', 'leading hyphen'],
    ['admin', 'reserved'],
    ['xapi', 'reserved'],
    ['health', 'reserved'],
    ['x'.repeat(64), 'too long'],
  ])('refuses the slug %j (%s) with 400 naming slug', async (slug) => {
    const response = await t.admin({ method: 'POST', url: '/admin/api/stores', payload: { slug, name: 'x' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('slug');
  });

  it('says why a reserved slug is refused', async () => {
    const response = await t.admin({ method: 'POST', url: '/admin/api/stores', payload: { slug: 'admin', name: 'x' } });
    expect(response.json().error.message).toMatch(/reserved/);
  });

  it('refuses a slug that is taken with 409', async () => {
    await t.createStore('demo');
    const response = await t.admin({ method: 'POST', url: '/admin/api/stores', payload: { slug: 'demo', name: 'again' } });
    expect(response.statusCode).toBe(409);
  });

  it('lists, reads and renames Stores', async () => {
    await t.createStore('one');
    await t.createStore('two', 'live');
    const list = (await t.admin({ method: 'GET', url: '/admin/api/stores' })).json();
    expect(list.stores.map((s: { slug: string }) => s.slug).sort()).toEqual(['one', 'two']);
    const renamed = await t.admin({ method: 'PATCH', url: '/admin/api/stores/one', payload: { name: 'First' } });
    expect(renamed.json().name).toBe('First');
    expect((await t.admin({ method: 'GET', url: '/admin/api/stores/one' })).json().name).toBe('First');
    expect((await t.admin({ method: 'GET', url: '/admin/api/stores/none' })).statusCode).toBe(404);
  });

  it('deletes a test Store outright and a live one only with its slug typed back', async () => {
    await t.createStore('trial');
    await t.createStore('prod', 'live');
    expect((await t.admin({ method: 'DELETE', url: '/admin/api/stores/trial' })).statusCode).toBe(204);
    const refused = await t.admin({ method: 'DELETE', url: '/admin/api/stores/prod' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.field).toBe('confirm');
    expect((await t.admin({ method: 'DELETE', url: '/admin/api/stores/prod?confirm=wrong' })).statusCode).toBe(400);
    expect((await t.admin({ method: 'DELETE', url: '/admin/api/stores/prod?confirm=prod' })).statusCode).toBe(204);
    expect((await t.admin({ method: 'GET', url: '/admin/api/stores' })).json().stores).toEqual([]);
  });

  it('deleting a Store removes its statements and keys', async () => {
    await t.createStore('demo');
    const key = await t.createKey('demo');
    await t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() });
    await t.admin({ method: 'DELETE', url: '/admin/api/stores/demo' });
    await t.createStore('demo');
    const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(response.statusCode).toBe(401);
    const search = await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' });
    expect(search.json().records).toEqual([]);
  });
});

describe('API keys', () => {
  beforeEach(() => t.createStore('demo'));

  it('creates a key with 201 showing id, secret and token once; its id shows the environment', async () => {
    const response = await t.admin({ method: 'POST', url: '/admin/api/stores/demo/keys', payload: { name: 'Storyline export' } });
    expect(response.statusCode).toBe(201);
    const created = response.json();
    expect(created.id).toMatch(/^lore_test_/);
    expect(created.token).toBe(`${created.id}.${created.secret}`);
    expect(created.scopes).toEqual(['all']);
    const listed = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/keys' })).json();
    expect(listed.keys).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(listed.keys[0]).not.toHaveProperty('secret');
  });

  it('marks keys of a live Store as live', async () => {
    await t.createStore('prod', 'live');
    const created = await t.createKey('prod');
    expect(created.id).toMatch(/^lore_live_/);
  });

  it('refuses an unknown scope naming scopes[0]', async () => {
    const response = await t.admin({ method: 'POST', url: '/admin/api/stores/demo/keys', payload: { name: 'k', scopes: ['everything'] } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('scopes[0]');
  });

  it('records when a key was last used', async () => {
    const key = await t.createKey('demo');
    await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' });
    const listed = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/keys' })).json();
    expect(listed.keys[0].lastUsedAt).not.toBeNull();
  });

  it('rotates a key: the replacement works at once and the old one until its expiry', async () => {
    const old = await t.createKey('demo', { name: 'course' });
    const before = Date.now();
    const response = await t.admin({ method: 'POST', url: `/admin/api/stores/demo/keys/${old.id}/rotate`, payload: {} });
    expect(response.statusCode).toBe(201);
    const { replacement, previous } = response.json();
    expect(replacement.secret).toBeDefined();
    expect(previous.replacedBy).toBe(replacement.id);
    const sevenDays = 7 * 24 * 3600 * 1000;
    expect(Math.abs(Date.parse(previous.expiresAt) - (before + sevenDays))).toBeLessThan(60_000);
    expect((await t.xapi(old, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(200);
    expect((await t.xapi(replacement, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(200);
  });

  it('rotates with a chosen expiry for the old key', async () => {
    const old = await t.createKey('demo', { name: 'course' });
    const oldKeyExpiresAt = new Date(Date.now() + 150).toISOString();
    await t.admin({ method: 'POST', url: `/admin/api/stores/demo/keys/${old.id}/rotate`, payload: { oldKeyExpiresAt } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await t.xapi(old, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(401);
  });

  it('refuses to rotate a key twice with 409 naming its replacement, and allows it again once the replacement is revoked', async () => {
    const old = await t.createKey('demo', { name: 'course' });
    const rotate = () => t.admin({ method: 'POST', url: `/admin/api/stores/demo/keys/${old.id}/rotate`, payload: {} });
    const first = await rotate();
    expect(first.statusCode).toBe(201);
    const replacementId = first.json().replacement.id as string;
    const second = await rotate();
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('key_already_rotated');
    expect(second.json().error.message).toContain(replacementId);
    const keys = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/keys' })).json().keys as Array<{ name: string }>;
    expect(keys.filter((key) => key.name === 'course')).toHaveLength(2);
    expect((await t.admin({ method: 'DELETE', url: `/admin/api/stores/demo/keys/${replacementId}` })).statusCode).toBe(200);
    expect((await rotate()).statusCode).toBe(201);
  });

  it('answers 404 for a key of another Store under this Store', async () => {
    await t.createStore('other');
    const foreign = await t.createKey('other');
    expect((await t.admin({ method: 'DELETE', url: `/admin/api/stores/demo/keys/${foreign.id}` })).statusCode).toBe(404);
  });
});

describe('Statement Explorer search', () => {
  beforeEach(() => t.createStore('demo'));

  it('finds accepted, voided and rejected statements, newest first, with the rejection reason', async () => {
    const key = await t.createKey('demo');
    const send = (payload: unknown) => t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: payload as object });
    const [first] = (await send(statement())).json();
    await send(statement({ actor: { mbox: 'bob@example.com' } }));
    await send(statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: first } }));

    const all = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' })).json();
    expect(all.records.map((r: { status: string }) => r.status)).toEqual(['accepted', 'rejected', 'voided']);
    const rejected = all.records[1];
    expect(rejected.error.field).toBe('actor.mbox');
    expect(rejected.statement).toEqual(statement({ actor: { mbox: 'bob@example.com' } }));
    expect(rejected.keyId).toBe(key.id);

    const onlyRejected = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements?status=rejected' })).json();
    expect(onlyRejected.records).toHaveLength(1);
  });

  it('searches by actor email, activity and verb, and pages with a cursor', async () => {
    const key = await t.createKey('demo');
    for (let i = 0; i < 5; i++) {
      await t.xapi(key, {
        method: 'POST',
        url: '/demo/xAPI/statements',
        payload: statement({ actor: { mbox: i % 2 ? 'mailto:bob@example.com' : 'mailto:ada@example.com' }, object: { id: `http://example.com/a${i}` } }),
      });
    }
    const ada = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements?agent=ada@example.com' })).json();
    expect(ada.records).toHaveLength(3);
    const byActivity = (
      await t.admin({ method: 'GET', url: `/admin/api/stores/demo/statements?activity=${encodeURIComponent('http://example.com/a1')}` })
    ).json();
    expect(byActivity.records).toHaveLength(1);
    const page1 = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements?limit=2' })).json();
    expect(page1.records).toHaveLength(2);
    const page2 = (await t.admin({ method: 'GET', url: `/admin/api/stores/demo/statements?limit=2&cursor=${page1.next}` })).json();
    expect(page2.records[0].seq).toBeLessThan(page1.records[1].seq);
  });

  it('finds a rejected statement by what its author sent: an mbox without mailto:, an object id that is no IRI', async () => {
    const key = await t.createKey('demo');
    const bad = await t.xapi(key, {
      method: 'POST',
      url: '/demo/xAPI/statements',
      payload: statement({ actor: { mbox: ' Grace@Example.com ' }, object: { id: 'module one' } }),
    });
    expect(bad.statusCode).toBe(400);
    for (const typed of ['Grace@example.com', 'mailto:Grace@EXAMPLE.com', '{"mbox":"mailto:Grace@example.com"}']) {
      const found = (await t.admin({ method: 'GET', url: `/admin/api/stores/demo/statements?agent=${encodeURIComponent(typed)}` })).json();
      expect([typed, found.records.map((r: { status: string }) => r.status)]).toEqual([typed, ['rejected']]);
    }
    const byObject = (await t.admin({ method: 'GET', url: `/admin/api/stores/demo/statements?activity=${encodeURIComponent('module one')}` })).json();
    expect(byObject.records.map((r: { status: string }) => r.status)).toEqual(['rejected']);
  });

  it('filters by registration: one attempt, its rejected statements included', async () => {
    const key = await t.createKey('demo');
    const attempt = '6f1c0a52-8d8e-4f55-9a2c-1f1e2d3c4b5a';
    const other = '0b7c9d2e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
    const send = (body: Record<string, unknown>) => t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: body });
    expect((await send(statement({ context: { registration: attempt } }))).statusCode).toBe(200);
    expect((await send(statement({ context: { registration: other } }))).statusCode).toBe(200);
    expect((await send(statement())).statusCode).toBe(200);
    expect((await send(statement({ actor: { mbox: 'nobody' }, context: { registration: attempt } }))).statusCode).toBe(400);
    const found = (await t.admin({ method: 'GET', url: `/admin/api/stores/demo/statements?registration=${attempt.toUpperCase()}` })).json();
    expect(found.records.map((r: { status: string }) => r.status)).toEqual(['rejected', 'accepted']);
    const refused = await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements?registration=attempt-1' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.field).toBe('registration');
  });

  it('stores statements that break a SHOULD as accepted with warnings, shows the warnings and filters on them', async () => {
    const key = await t.createKey('demo');
    const send = (body: Record<string, unknown>) => t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: body });
    expect((await send(statement())).statusCode).toBe(200);
    const sloppy = await send({
      actor: { mbox: 'mailto:ada@example.com' },
      verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
      object: { id: 'http://example.com/courses/module-1' },
      timestamp: '2026-11-25T09:30:00',
      context: { extensions: { 'urn:example:score-mode': 'strict', 'http://example.com/ext/ok': 1 } },
    });
    expect(sloppy.statusCode, sloppy.body).toBe(200);
    const [sloppyId] = sloppy.json() as string[];

    const all = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' })).json();
    const record = all.records.find((r: { statementId: string }) => r.statementId === sloppyId);
    expect(record.status).toBe('accepted');
    expect(record.warnings.map((w: { field: string }) => w.field)).toEqual(['timestamp', 'verb.display', 'context.extensions']);
    expect(record.warnings[2].message).toContain('"urn:example:score-mode"');
    expect(all.records.find((r: { statementId: string }) => r.statementId !== sloppyId).warnings).toEqual([]);

    const warned = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements?warned=true' })).json();
    expect(warned.records.map((r: { statementId: string }) => r.statementId)).toEqual([sloppyId]);
  });

  it('refuses an unknown status value naming status', async () => {
    const response = await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements?status=maybe' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('status');
  });
});

describe("the tests' check of admin answers against the contract (test-app.ts)", () => {
  it('finds the operation a request names, and refuses an answer that drifted from its output schema', () => {
    expect(adminOperationFor('GET', '/admin/api/stores/demo/keys/lore_test_x')).toBe('apiKeys.get');
    expect(adminOperationFor('delete', '/admin/api/stores/demo?confirm=demo')).toBe('stores.delete');
    expect(adminOperationFor('GET', '/demo/xAPI/statements')).toBeNull();
    expect(() => checkAgainstContract('GET', '/admin/api/stores/demo', { statusCode: 200, body: JSON.stringify({ slug: 42 }) })).toThrow(/stores\.get/);
    expect(() => checkAgainstContract('GET', '/admin/api/stores/demo', { statusCode: 404, body: '{}' })).not.toThrow();
  });
});
