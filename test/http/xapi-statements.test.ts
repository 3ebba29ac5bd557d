import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, statement, type CreatedKey, type TestApp } from './test-app';

let t: TestApp;
let key: CreatedKey;

beforeEach(async () => {
  t = await buildTestApp();
  await t.createStore('demo');
  key = await t.createKey('demo', { name: 'Storyline export' });
});
afterEach(() => t.close());

const post = (payload: unknown, version = '1.0.3') =>
  t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: payload as object, version });
const get = (query: string) => t.xapi(key, { method: 'GET', url: `/demo/xAPI/statements${query}` });

describe('POST /statements', () => {
  it('stores one statement and answers 200 with its id in an array', async () => {
    const response = await post(statement());
    expect(response.statusCode).toBe(200);
    const ids = response.json();
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sets id, stored, authority, version and timestamp on what it stores', async () => {
    const [id] = (await post(statement())).json();
    const stored = (await get(`?statementId=${id}`)).json();
    expect(stored.id).toBe(id);
    expect(Date.parse(stored.stored)).not.toBeNaN();
    expect(stored.timestamp).toBeDefined();
    expect(stored.version).toMatch(/^1\.0/);
    expect(stored.authority.account.name).toBe(key.id);
  });

  it('stores a batch and answers the ids in request order', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const response = await post(ids.map((id) => statement({ id })));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(ids);
  });

  it('rejects an mbox without mailto: with 400, naming actor.mbox in plain words', async () => {
    const response = await post(statement({ actor: { mbox: 'ada@example.com' } }));
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('invalid_statement');
    expect(error.field).toBe('actor.mbox');
    expect(error.message).toMatch(/mailto:/);
  });

  it('rejects a statement without a verb and names verb', async () => {
    const { verb: _verb, ...withoutVerb } = statement();
    const response = await post(withoutVerb);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('verb');
  });

  it('names the nested path of a bad context activity id', async () => {
    const response = await post(
      statement({ context: { contextActivities: { parent: [{ id: 'not an iri' }] } } }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('context.contextActivities.parent[0].id');
  });

  it('refuses a whole batch when one statement is invalid, says which, and stores none of it', async () => {
    const good = statement({ id: randomUUID() });
    const bad = statement({ id: randomUUID(), verb: { id: 'completed' } });
    const response = await post([good, bad]);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.statementIndex).toBe(1);
    expect(response.json().error.field).toBe('verb.id');
    expect((await get(`?statementId=${good.id}`)).statusCode).toBe(404);
  });

  it('treats the same id with the same content as a no-op success', async () => {
    const same = statement({ id: randomUUID() });
    expect((await post(same)).statusCode).toBe(200);
    const again = await post(same);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual([same.id]);
  });

  it('answers 409 for the same id with different content and keeps the first', async () => {
    const id = randomUUID();
    await post(statement({ id }));
    const response = await post(statement({ id, verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' } }));
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('statement_conflict');
    const kept = (await get(`?statementId=${id}`)).json();
    expect(kept.verb.id).toBe('http://adlnet.gov/expapi/verbs/completed');
  });

  it('refuses a batch holding the same id twice', async () => {
    const id = randomUUID();
    const response = await post([statement({ id }), statement({ id })]);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.statementIndex).toBe(1);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const response = await t.xapi(key, {
      method: 'POST',
      url: '/demo/xAPI/statements',
      payload: '{"actor": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_body');
  });

  it('accepts contextAgents under 2.0.0 and refuses them under 1.0.3', async () => {
    const withContextAgents = statement({
      context: { contextAgents: [{ objectType: 'contextAgent', agent: { mbox: 'mailto:tutor@example.com' } }] },
    });
    expect((await post(withContextAgents, '2.0.0')).statusCode).toBe(200);
    const old = await post(withContextAgents, '1.0.3');
    expect(old.statusCode).toBe(400);
    expect(old.json().error.field).toMatch(/^context\.contextAgents/);
  });
});

describe('PUT /statements', () => {
  it('stores the statement under statementId and answers 204', async () => {
    const id = randomUUID();
    const response = await t.xapi(key, { method: 'PUT', url: `/demo/xAPI/statements?statementId=${id}`, payload: statement() });
    expect(response.statusCode).toBe(204);
    expect((await get(`?statementId=${id}`)).json().id).toBe(id);
  });

  it('refuses a PUT without statementId', async () => {
    const response = await t.xapi(key, { method: 'PUT', url: '/demo/xAPI/statements', payload: statement() });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('statementId');
  });

  it("refuses a PUT whose body id differs from statementId", async () => {
    const response = await t.xapi(key, {
      method: 'PUT',
      url: `/demo/xAPI/statements?statementId=${randomUUID()}`,
      payload: statement({ id: randomUUID() }),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('id');
  });

  it('answers 409 on a PUT of different content under an existing id', async () => {
    const id = randomUUID();
    await t.xapi(key, { method: 'PUT', url: `/demo/xAPI/statements?statementId=${id}`, payload: statement() });
    const response = await t.xapi(key, {
      method: 'PUT',
      url: `/demo/xAPI/statements?statementId=${id}`,
      payload: statement({ object: { id: 'http://example.com/other' } }),
    });
    expect(response.statusCode).toBe(409);
  });

  it('compares a PUT under an id the LRS made with the statement stored under it', async () => {
    const sent = statement();
    const [id] = (await post(sent)).json() as string[];
    const put = (payload: object) => t.xapi(key, { method: 'PUT', url: `/demo/xAPI/statements?statementId=${id}`, payload });
    expect((await put(sent)).statusCode).toBe(204);
    expect((await put({ ...sent, id })).statusCode).toBe(204);
    expect((await put(statement({ object: { id: 'http://example.com/other' } }))).statusCode).toBe(409);
    expect((await post({ ...sent, id })).statusCode).toBe(200);
  });
});

describe('GET /statements', () => {
  async function seed() {
    const ada = { mbox: 'mailto:ada@example.com' };
    const bob = { mbox: 'mailto:bob@example.com' };
    const completed = { id: 'http://adlnet.gov/expapi/verbs/completed' };
    const attempted = { id: 'http://adlnet.gov/expapi/verbs/attempted' };
    const m1 = { id: 'http://example.com/m1' };
    const m2 = { id: 'http://example.com/m2' };
    const rows = [
      statement({ actor: ada, verb: attempted, object: m1 }),
      statement({ actor: ada, verb: completed, object: m1 }),
      statement({ actor: bob, verb: attempted, object: m2 }),
      statement({ actor: bob, verb: completed, object: m2 }),
      statement({ actor: ada, verb: attempted, object: m2 }),
    ];
    const ids: string[] = [];
    for (const row of rows) ids.push(...(await post(row)).json());
    return ids;
  }

  it('returns a StatementResult newest first with the consistency header', async () => {
    const ids = await seed();
    const response = await get('');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-experience-api-consistent-through']).toBeDefined();
    const body = response.json();
    expect(body.statements.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(body.more).toBe('');
  });

  it('filters by agent, verb and activity', async () => {
    const ids = await seed();
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:bob@example.com' }));
    expect((await get(`?agent=${agent}`)).json().statements.map((s: { id: string }) => s.id)).toEqual([ids[3], ids[2]]);
    const verb = encodeURIComponent('http://adlnet.gov/expapi/verbs/completed');
    expect((await get(`?verb=${verb}`)).json().statements).toHaveLength(2);
    const activity = encodeURIComponent('http://example.com/m2');
    expect((await get(`?activity=${activity}&ascending=true`)).json().statements.map((s: { id: string }) => s.id)).toEqual([
      ids[2],
      ids[3],
      ids[4],
    ]);
  });

  it('filters by since and until on stored', async () => {
    const ids = await seed();
    const third = (await get(`?statementId=${ids[2]}`)).json();
    const after = (await get(`?since=${encodeURIComponent(third.stored)}&ascending=true`)).json().statements;
    expect(after.every((s: { stored: string }) => s.stored > third.stored)).toBe(true);
    const upTo = (await get(`?until=${encodeURIComponent(third.stored)}`)).json().statements;
    expect(upTo.map((s: { id: string }) => s.id)).toContain(ids[2]);
    expect(upTo.every((s: { stored: string }) => s.stored <= third.stored)).toBe(true);
  });

  it('pages with limit and more until every statement is read exactly once', async () => {
    const ids = await seed();
    const seen: string[] = [];
    let url = '/demo/xAPI/statements?limit=2';
    for (let page = 0; page < 10 && url; page++) {
      const body = (await t.xapi(key, { method: 'GET', url })).json();
      expect(body.statements.length).toBeLessThanOrEqual(2);
      seen.push(...body.statements.map((s: { id: string }) => s.id));
      url = body.more;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('refuses an edited more token with 400, never 500', async () => {
    await seed();
    const first = (await get('?limit=2')).json();
    const token = new URL(first.more, 'http://x').searchParams.get('more')!;
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    decoded.query.since = 'garbage';
    const edited = Buffer.from(JSON.stringify(decoded), 'utf8').toString('base64url');
    const response = await get(`?more=${edited}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('more');
  });

  it('refuses an unknown query parameter, naming it', async () => {
    const response = await get('?colour=blue');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.field).toBe('colour');
  });

  it('answers 404 for an unknown statementId', async () => {
    expect((await get(`?statementId=${randomUUID()}`)).statusCode).toBe(404);
  });

  it('hides a voided statement from queries and serves it by voidedStatementId', async () => {
    const [target] = (await post(statement())).json();
    const voiding = statement({
      verb: { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } },
      object: { objectType: 'StatementRef', id: target },
    });
    expect((await post(voiding)).statusCode).toBe(200);
    expect((await get(`?statementId=${target}`)).statusCode).toBe(404);
    expect((await get(`?voidedStatementId=${target}`)).json().id).toBe(target);
    const listed = (await get('')).json().statements.map((s: { id: string }) => s.id);
    expect(listed).not.toContain(target);
  });
});
