/**
 * GET and HEAD /statements beyond the basics of xapi-statements.test.ts (xAPI 1.0.3 Part Three
 * §2.1.3 and §2.1.4; 2.0.0 the same sections): parameter exclusivity, the consistency header on
 * every answer, Last-Modified, HEAD, and the filter rules for statements that target others.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();

const post = (payload: unknown) => demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: payload as object });
const get = (query: string) => demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/statements${query}` });
const ids = async (query: string): Promise<string[]> => (await get(query)).json().statements.map((s: { id: string }) => s.id);

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided';
const ATTENDED = 'http://adlnet.gov/expapi/verbs/attended';
const ref = (id: string) => ({ objectType: 'StatementRef', id });

describe('statementId and voidedStatementId (§2.1.3.s2.b2)', () => {
  it.each(['agent=%7B%22mbox%22%3A%22mailto%3Aa%40example.com%22%7D', 'verb=http%3A%2F%2Fexample.com%2Fv', 'limit=1', 'ascending=true', 'since=2024-01-01T00:00:00Z'])(
    'answers 400 for statementId with %s',
    async (other) => {
      const response = await get(`?statementId=${randomUUID()}&${other}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.field).toBe(other.split('=')[0]);
    },
  );

  it('answers 400 for voidedStatementId with a filter, and for both ids together', async () => {
    expect((await get(`?voidedStatementId=${randomUUID()}&registration=${randomUUID()}`)).statusCode).toBe(400);
    expect((await get(`?statementId=${randomUUID()}&voidedStatementId=${randomUUID()}`)).statusCode).toBe(400);
  });

  it('accepts statementId with format and attachments', async () => {
    const [id] = (await post(statement())).json();
    expect((await get(`?statementId=${id}&format=ids&attachments=false`)).statusCode).toBe(200);
  });
});

describe('X-Experience-API-Consistent-Through and Last-Modified', () => {
  it('comes with every GET answer, a refusal or a 404 included (§2.1.3.s2.b5)', async () => {
    for (const query of [`?statementId=${randomUUID()}&limit=2`, `?statementId=${randomUUID()}`, '?format=nonsense', '']) {
      const response = await get(query);
      expect(Date.parse(response.headers['x-experience-api-consistent-through'] as string), query).not.toBeNaN();
    }
  });

  it('sets Last-Modified to the stored time of the newest statement answered', async () => {
    const [id] = (await post(statement())).json();
    const stored = (await get(`?statementId=${id}`)).json().stored;
    const single = await get(`?statementId=${id}`);
    expect(single.headers['last-modified']).toBe(new Date(stored).toUTCString());
    expect((await get('')).headers['last-modified']).toBe(new Date(stored).toUTCString());
  });
});

describe('HEAD /statements (Part Three §1.1)', () => {
  it('answers like GET, headers included, without a body', async () => {
    const [id] = (await post(statement())).json();
    const head = await demo.t.xapi(demo.key, { method: 'HEAD', url: `/demo/xAPI/statements?statementId=${id}` });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['x-experience-api-consistent-through']).toBeDefined();
    expect(head.headers['last-modified']).toBeDefined();
    expect(head.headers['content-type']).toMatch(/^application\/json/);
    expect((await demo.t.xapi(demo.key, { method: 'HEAD', url: `/demo/xAPI/statements?statementId=${randomUUID()}` })).statusCode).toBe(404);
  });
});

describe('statements that target other statements (§2.1.4, "Filter Conditions for StatementRefs")', () => {
  it('hides a voided statement from queries and statementId, serves it by voidedStatementId, and returns its voiding statement', async () => {
    const verb = `http://example.com/verbs/${randomUUID()}`;
    const [voided] = (await post(statement({ verb: { id: verb } }))).json();
    const [voiding] = (await post(statement({ verb: { id: VOIDED }, object: ref(voided) }))).json();
    expect((await get(`?statementId=${voided}`)).statusCode).toBe(404);
    expect((await get(`?voidedStatementId=${voided}`)).json().id).toBe(voided);
    // The voiding statement meets verb= through the statement it targets (XAPI-00162).
    expect(await ids(`?verb=${encodeURIComponent(verb)}`)).toEqual([voiding]);
  });

  it('returns a statement whose StatementRef targets a voided statement that matches', async () => {
    const verb = `http://example.com/verbs/${randomUUID()}`;
    const [voided] = (await post(statement({ verb: { id: verb } }))).json();
    const [voiding] = (await post(statement({ verb: { id: VOIDED }, object: ref(voided) }))).json();
    const [referring] = (await post(statement({ verb: { id: verb }, object: ref(voided) }))).json();
    expect(await ids(`?verb=${encodeURIComponent(verb)}`)).toEqual([referring, voiding]);
  });

  it('matches agent and activity filters through the target, recursively', async () => {
    const agent = { mbox: `mailto:${randomUUID()}@example.com` };
    const activity = `http://example.com/activities/${randomUUID()}`;
    const [c] = (await post(statement({ actor: agent, object: { id: activity } }))).json();
    const [b] = (await post(statement({ verb: { id: ATTENDED }, object: ref(c) }))).json();
    const [a] = (await post(statement({ verb: { id: ATTENDED }, object: ref(b) }))).json();
    await post(statement());
    const agentQuery = `?agent=${encodeURIComponent(JSON.stringify(agent))}`;
    expect(await ids(agentQuery)).toEqual([a, b, c]);
    expect(await ids(`?activity=${encodeURIComponent(activity)}&ascending=true`)).toEqual([c, b, a]);
    // The target must meet every filter: c's verb is not "attended".
    expect(await ids(`${agentQuery}&verb=${encodeURIComponent(ATTENDED)}`)).toEqual([]);
  });

  it('applies since, until and limit to the targeting statement itself, and pages through both kinds', async () => {
    const verb = `http://example.com/verbs/${randomUUID()}`;
    const [target] = (await post(statement({ verb: { id: verb } }))).json();
    const targetStored = (await get(`?statementId=${target}`)).json().stored;
    // The next statement must be stored in a later millisecond for since/until to tell them apart.
    while (Date.now() <= Date.parse(targetStored)) await new Promise((resolve) => setImmediate(resolve));
    const [referring] = (await post(statement({ verb: { id: ATTENDED }, object: ref(target) }))).json();
    const [second] = (await post(statement({ verb: { id: verb } }))).json();
    expect(await ids(`?verb=${encodeURIComponent(verb)}&since=${encodeURIComponent(targetStored)}`)).toEqual([second, referring]);
    expect(await ids(`?verb=${encodeURIComponent(verb)}&until=${encodeURIComponent(targetStored)}`)).toEqual([target]);

    const seen: string[] = [];
    let next = `/demo/xAPI/statements?verb=${encodeURIComponent(verb)}&limit=1`;
    while (next !== '') {
      const page = (await demo.t.xapi(demo.key, { method: 'GET', url: next })).json();
      seen.push(...page.statements.map((s: { id: string }) => s.id));
      next = page.more;
    }
    expect(seen).toEqual([second, referring, target]);
  });

  it('does not return a statement whose target does not match, nor one whose target is unknown', async () => {
    const verb = `http://example.com/verbs/${randomUUID()}`;
    const [other] = (await post(statement())).json();
    await post(statement({ verb: { id: ATTENDED }, object: ref(other) }));
    await post(statement({ verb: { id: ATTENDED }, object: ref(randomUUID()) }));
    expect(await ids(`?verb=${encodeURIComponent(verb)}`)).toEqual([]);
  });
});

describe('the answer is the stored text, as bytes', () => {
  it('writes each statement in UTF-8 exactly as stored, with a Content-Length of the bytes sent', async () => {
    const actor = { objectType: 'Agent', name: 'Zoë 日本 ✓', mbox: 'mailto:zoe@example.com' };
    const [id] = (await post(statement({ actor }))).json();
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:zoe@example.com' }));
    for (const query of [`?agent=${agent}`, `?statementId=${id}`]) {
      const response = await get(query);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
      const body = response.json();
      const read = query.startsWith('?agent') ? body.statements[0] : body;
      expect(read.id).toBe(id);
      expect(read.actor.name).toBe('Zoë 日本 ✓');
    }
    // A page and the statement alone carry the same text for it.
    const page = (await get(`?agent=${agent}`)).rawPayload.toString('utf8');
    expect(page).toContain((await get(`?statementId=${id}`)).rawPayload.toString('utf8'));
  });
});
