import { describe, expect, it } from 'vitest';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore({ name: 'course' });

const getAgents = (query: Record<string, string>, options: { method?: 'GET' | 'HEAD'; url?: string } = {}) =>
  demo.t.xapi(demo.key, { method: options.method ?? 'GET', url: options.url ?? '/demo/xAPI/agents', query });
const agentQuery = (agent: unknown) => ({ agent: JSON.stringify(agent) });

// xAPI 1.0.3 Part Three §2.4; 2.0.0 Part Four §4.1.6.3.
describe('GET /agents', () => {
  it('answers a Person Object with the Agent’s identifier and name as arrays (XAPI-00237, -00238, -00239)', async () => {
    const actor = { objectType: 'Agent', name: 'Ada', mbox: 'mailto:ada@example.com' };
    await demo.t.xapi(demo.key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement({ actor }) });
    const response = await getAgents(agentQuery(actor));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ objectType: 'Person', name: ['Ada'], mbox: ['mailto:ada@example.com'] });
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{40}"$/);
  });

  it('still answers a Person for an Agent it has never seen (§2.4.s3.b3)', async () => {
    const response = await getAgents(agentQuery({ account: { homePage: 'http://www.example.com/agentId/1', name: 'Rick James' } }));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      objectType: 'Person',
      account: [{ homePage: 'http://www.example.com/agentId/1', name: 'Rick James' }],
    });
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await getAgents(agentQuery({ mbox: 'mailto:ada@example.com' }), { method: 'HEAD' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it('rejects a request without agent with 400 naming agent (XAPI-00243)', async () => {
    const response = await getAgents({});
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_parameter', field: 'agent' });
  });

  it('rejects an Agent without an identifier, a Group and text that is not JSON with 400 (XAPI-00249)', async () => {
    for (const query of [agentQuery({ objectType: 'Agent', name: 'Rick James' }), agentQuery({ objectType: 'Group', mbox: 'mailto:t@example.com' }), { agent: 'ada' }]) {
      const response = await getAgents(query);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.field).toBe('agent');
    }
  });

  it('serves the earlier /xapi address too', async () => {
    const response = await getAgents(agentQuery({ openid: 'https://openid.example.com/ada' }), { url: '/xapi/agents' });
    expect(response.json()).toEqual({ objectType: 'Person', openid: ['https://openid.example.com/ada'] });
  });
});
