import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, statement, type CreatedKey, type TestApp } from './test-app';

let t: TestApp;
let key: CreatedKey;

beforeEach(async () => {
  t = await buildTestApp();
  await t.createStore('demo');
  key = await t.createKey('demo');
});
afterEach(() => t.close());

describe('xAPI version header', () => {
  it('refuses a request without X-Experience-API-Version with 400 naming the header and the accepted values', async () => {
    const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements', version: null });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('unsupported_version');
    expect(error.field).toBe('X-Experience-API-Version');
    expect(error.message).toMatch(/1\.0\.3/);
    expect(error.message).toMatch(/2\.0\.0/);
  });

  it('refuses an unsupported version such as 0.95', async () => {
    const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements', version: '0.95' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('0.95');
  });

  it('accepts 1.0, 1.0.2 and 2.0.0 and echoes the version it serves', async () => {
    for (const [sent, echoed] of [['1.0', '1.0.3'], ['1.0.2', '1.0.3'], ['2.0.0', '2.0.0']]) {
      const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements', version: sent });
      expect(response.statusCode, sent).toBe(200);
      expect(response.headers['x-experience-api-version']).toBe(echoed);
    }
  });

  it('serves /about without the version header and without credentials', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/demo/xAPI/about' });
    expect(response.statusCode).toBe(200);
    expect(response.json().version).toEqual(expect.arrayContaining(['1.0.3', '2.0.0']));
    expect(response.headers['x-experience-api-version']).toBeDefined();
  });

  it('answers 404 for /about of an unknown Store', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/nope/xAPI/about' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('store_not_found');
    expect(response.json().error.message).toBe(
      'No Store has the slug "nope". A Store\'s endpoint has the shape http://127.0.0.1:8411/<store_slug>/xAPI/; the slugs are listed in the console.',
    );
  });
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate when no credentials are sent', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/demo/xAPI/statements',
      headers: { 'x-experience-api-version': '1.0.3' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/Basic/);
    expect(response.headers['www-authenticate']).toMatch(/Bearer/);
    expect(response.json().error.code).toBe('unauthenticated');
  });

  it('answers 401 for malformed credentials', async () => {
    for (const authorization of ['Basic', 'Basic !!!', 'Bearer nodot', 'Digest abc', 'Basic ' + Buffer.from('nocolon').toString('base64')]) {
      const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements', headers: { authorization } });
      expect(response.statusCode, authorization).toBe(401);
    }
  });

  it('answers 401 for a wrong secret and says it is the secret that does not match that key', async () => {
    const wrong = { ...key, basic: Buffer.from(`${key.id}:wrong-secret`).toString('base64') };
    const response = await t.xapi(wrong, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toMatch(/secret does not match/);
    expect(response.json().error.message).toContain(key.id);
    expect(response.body).not.toContain('wrong-secret');
  });

  it('answers 401 for an unknown key id and says no key has that id', async () => {
    const unknown = { ...key, basic: Buffer.from(`lore_test_nosuchkey:${key.secret}`).toString('base64') };
    const response = await t.xapi(unknown, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toMatch(/No API key has the id "lore_test_nosuchkey"/);
    expect(response.body).not.toContain(key.secret);
  });

  it('answers 401 without credentials and says how to send them', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/demo/xAPI/statements', headers: { 'x-experience-api-version': '1.0.3' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toMatch(/Credentials are required/);
  });

  it('accepts the same key as Basic id:secret and as Bearer token', async () => {
    const basic = await t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() });
    expect(basic.statusCode).toBe(200);
    const bearer = await t.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements',
      payload: statement(),
      headers: { authorization: `Bearer ${key.token}`, 'x-experience-api-version': '1.0.3' },
    });
    expect(bearer.statusCode).toBe(200);
  });

  it("refuses a valid key on another Store's path with 403", async () => {
    await t.createStore('other');
    const response = await t.xapi(key, { method: 'POST', url: '/other/xAPI/statements', payload: statement() });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('wrong_store');
    expect(response.json().error.message).toMatch(new RegExp(`API key "${key.id}" belongs to another Store.*Store "other"`));
  });

  it('answers 404 for an unknown Store with a valid key', async () => {
    const response = await t.xapi(key, { method: 'GET', url: '/missing/xAPI/statements' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('store_not_found');
    expect(response.json().error.message).toBe(
      'No Store has the slug "missing". A Store\'s endpoint has the shape http://127.0.0.1:8411/<store_slug>/xAPI/; the slugs are listed in the console.',
    );
  });

  it('refuses a revoked key at once with 401', async () => {
    const revoke = await t.admin({ method: 'DELETE', url: `/admin/api/stores/demo/keys/${key.id}` });
    expect(revoke.statusCode).toBe(200);
    const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(response.statusCode).toBe(401);
    const revokedAt = revoke.json().revokedAt as string;
    expect(response.json().error.message).toBe(`API key "${key.id}" was revoked at ${revokedAt}; create a new key for this content.`);
  });

  it('refuses a key revoked after it was used, on its very next request', async () => {
    // Used first, so whatever a request keeps of a key that passed is warm.
    for (let i = 0; i < 3; i++) expect((await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(200);
    const revoke = await t.admin({ method: 'DELETE', url: `/admin/api/stores/demo/keys/${key.id}` });
    expect(revoke.statusCode).toBe(200);
    const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.message).toContain('was revoked');
  });

  it('refuses a used key presented with a wrong secret, and still serves the right one', async () => {
    expect((await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(200);
    const wrongSecret = `${key.secret.slice(0, -1)}${key.secret.endsWith('A') ? 'B' : 'A'}`;
    const wrong = { ...key, basic: Buffer.from(`${key.id}:${wrongSecret}`, 'utf8').toString('base64') };
    expect((await t.xapi(wrong, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(401);
    expect((await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' })).statusCode).toBe(200);
  });

  it('refuses an expired key with 401', async () => {
    const expiring = await t.createKey('demo', { name: 'short', expiresAt: new Date(Date.now() + 200).toISOString() });
    const before = await t.xapi(expiring, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(before.statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = await t.xapi(expiring, { method: 'GET', url: '/demo/xAPI/statements' });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.message).toMatch(new RegExp(`API key "${expiring.id}" expired at \\d{4}-\\d\\d-\\d\\dT`));
  });

  it("serves the earlier /xapi path on the key's own Store", async () => {
    const post = await t.xapi(key, { method: 'POST', url: '/xapi/statements', payload: statement() });
    expect(post.statusCode).toBe(200);
    const [id] = post.json();
    const read = await t.xapi(key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${id}` });
    expect(read.statusCode).toBe(200);
  });

  it('accepts the xapi segment in any case', async () => {
    for (const segment of ['xAPI', 'xapi', 'XAPI', 'XApi']) {
      const response = await t.xapi(key, { method: 'GET', url: `/demo/${segment}/statements` });
      expect(response.statusCode, segment).toBe(200);
    }
  });

  describe('a statements/read/mine key', () => {
    const VOIDED = { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } };
    const post = async (by: CreatedKey, body: Record<string, unknown>): Promise<string> => {
      const response = await t.xapi(by, { method: 'POST', url: '/demo/xAPI/statements', payload: body });
      expect(response.statusCode).toBe(200);
      return response.json()[0];
    };
    const read = (by: CreatedKey, url: string) => t.xapi(by, { method: 'GET', url: `/demo/xAPI/statements${url}` });
    const listed = async (by: CreatedKey, url: string) => (await read(by, url)).json().statements.map((s: { id: string }) => s.id);
    let mine: CreatedKey;
    beforeEach(async () => {
      mine = await t.createKey('demo', { name: 'mine', scopes: ['statements/read/mine', 'statements/write'] });
    });

    it('sees the statements it sent and not those of another key, by query and by id', async () => {
      const theirs = await post(key, statement());
      const first = await post(mine, statement());
      const second = await post(mine, statement());
      expect(await listed(mine, '')).toEqual([second, first]);
      expect(await listed(mine, '?verb=http://adlnet.gov/expapi/verbs/completed&ascending=true')).toEqual([first, second]);
      expect((await read(mine, `?statementId=${first}`)).json().id).toBe(first);
      expect((await read(mine, `?statementId=${theirs}`)).statusCode).toBe(404);
      // A key that reads the whole Store still sees everything.
      expect(await listed(key, '')).toEqual([second, first, theirs]);
    });

    it('finds its own voided statements through voidedStatementId, and not another key\'s', async () => {
      const own = await post(mine, statement());
      const theirs = await post(key, statement());
      await post(mine, statement({ verb: VOIDED, object: { objectType: 'StatementRef', id: own } }));
      await post(key, statement({ verb: VOIDED, object: { objectType: 'StatementRef', id: theirs } }));
      expect((await read(mine, `?voidedStatementId=${own}`)).statusCode).toBe(200);
      expect((await read(mine, `?voidedStatementId=${theirs}`)).statusCode).toBe(404);
    });

    it('stays limited to its own statements through more, and cannot read on with an unlimited more link', async () => {
      const own = [await post(mine, statement()), await post(mine, statement())];
      await post(key, statement());
      await post(key, statement());
      const page1 = (await read(mine, '?limit=1')).json();
      expect(page1.statements.map((s: { id: string }) => s.id)).toEqual([own[1]]);
      const page2 = (await t.xapi(mine, { method: 'GET', url: page1.more })).json();
      expect(page2.statements.map((s: { id: string }) => s.id)).toEqual([own[0]]);
      expect(page2.more).toBe('');
      const unlimited = (await read(key, '?limit=1')).json().more;
      const refused = await t.xapi(mine, { method: 'GET', url: unlimited });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.field).toBe('more');
    });

    it('matches a StatementRef only when the referring statement is its own', async () => {
      const ATTENDED = { id: 'http://adlnet.gov/expapi/verbs/attended', display: { 'en-US': 'attended' } };
      const target = await post(key, statement());
      const ownRef = await post(mine, statement({ verb: ATTENDED, object: { objectType: 'StatementRef', id: target } }));
      await post(key, statement({ verb: ATTENDED, object: { objectType: 'StatementRef', id: target } }));
      expect(await listed(mine, '?verb=http://adlnet.gov/expapi/verbs/completed')).toEqual([ownRef]);
    });

    it('is still refused Activities and Agents without define', async () => {
      const activity = await t.xapi(mine, { method: 'GET', url: `/demo/xAPI/activities?activityId=${encodeURIComponent('http://example.com/courses/module-1')}` });
      expect(activity.statusCode).toBe(403);
      const agents = await t.xapi(mine, { method: 'GET', url: `/demo/xAPI/agents?agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:ada@example.com' }))}` });
      expect(agents.statusCode).toBe(403);
    });
  });

  it('refuses a key without statements/write scope on POST with 403', async () => {
    const reader = await t.createKey('demo', { name: 'reader', scopes: ['statements/read'] });
    const response = await t.xapi(reader, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('insufficient_scope');
  });
});
