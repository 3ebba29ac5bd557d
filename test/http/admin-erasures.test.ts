/**
 * Forgetting a learner through the admin API, end to end over the xAPI routes: what content sent
 * about her (statements, a State, an Agent Profile, a rejected statement, a refused request) is
 * counted by a dry run, then erased; GET /statements with her as agent finds nothing afterwards,
 * another learner's data stays, and the ledger lists the erasure without her IFIs. Also a Store's
 * retention set by PATCH. Runs on PostgreSQL too (vitest.config.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ErasureOutcomeView, StoreView } from '../../src-server/admin/contract';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();
const ADA = { mbox: 'mailto:ada@example.com' };
const BOB = { objectType: 'Agent', name: 'Bob', mbox: 'mailto:bob@example.com' };
const ACTIVITY = 'http://example.com/courses/module-1';

async function seed(): Promise<{ ada: string; bob: string }> {
  const { t, key } = demo;
  const ada = await t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement() });
  expect(ada.statusCode).toBe(200);
  const bob = await t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement({ actor: BOB }) });
  expect(bob.statusCode).toBe(200);
  const agent = encodeURIComponent(JSON.stringify(ADA));
  const state = await t.xapi(key, { method: 'PUT', url: `/demo/xAPI/activities/state?activityId=${encodeURIComponent(ACTIVITY)}&agent=${agent}&stateId=bookmark`, payload: { page: 3 } });
  expect(state.statusCode).toBe(204);
  const profile = await t.xapi(key, { method: 'POST', url: `/demo/xAPI/agents/profile?agent=${agent}&profileId=prefs`, payload: { theme: 'dark' } });
  expect(profile.statusCode).toBe(204);
  // Rejected: an mbox without mailto:, filed under her address.
  const rejected = await t.xapi(key, { method: 'POST', url: '/demo/xAPI/statements', payload: statement({ actor: { mbox: 'ada@example.com' } }) });
  expect(rejected.statusCode).toBe(400);
  // Refused: no version header, with her in the query.
  const refused = await t.xapi(key, { method: 'GET', url: `/demo/xAPI/statements?agent=${agent}`, version: null });
  expect(refused.statusCode).toBe(400);
  return { ada: (ada.json() as string[])[0]!, bob: (bob.json() as string[])[0]! };
}

async function erase(payload: Record<string, unknown>): Promise<{ status: number; body: ErasureOutcomeView & { error?: { field?: string; message: string } } }> {
  const response = await demo.t.admin({ method: 'POST', url: '/admin/api/stores/demo/erasures', payload });
  return { status: response.statusCode, body: response.json() };
}

describe('forgetting a learner (admin API)', () => {
  it('counts in a dry run what the erasure removes, then removes it; queries find nothing of her, Bob stays', async () => {
    const { ada, bob } = await seed();
    const dry = await erase({ agent: ADA, dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      dryRun: true,
      counts: { statements: 1, attachments: 0, rejections: 1, refusals: 1, stateDocuments: 1, agentProfileDocuments: 1, receivedCopies: 0, testBenchRecords: 0 },
      erasure: null,
    });
    const done = await erase({ agents: [ADA, { account: { homePage: 'https://lms.example.com', name: 'ada' } }] });
    expect(done.status).toBe(200);
    expect(done.body.counts).toEqual(dry.body.counts);

    const { t, key } = demo;
    const agent = encodeURIComponent(JSON.stringify(ADA));
    const found = await t.xapi(key, { method: 'GET', url: `/demo/xAPI/statements?agent=${agent}&related_agents=true` });
    expect(found.json().statements).toEqual([]);
    expect((await t.xapi(key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${ada}` })).statusCode).toBe(404);
    expect((await t.xapi(key, { method: 'GET', url: `/demo/xAPI/statements?statementId=${bob}` })).statusCode).toBe(200);
    const state = await t.xapi(key, { method: 'GET', url: `/demo/xAPI/activities/state?activityId=${encodeURIComponent(ACTIVITY)}&agent=${agent}&stateId=bookmark` });
    expect(state.statusCode).toBe(404);
    const explorer = await t.admin({ method: 'GET', url: '/admin/api/stores/demo/statements' });
    expect(JSON.stringify(explorer.json())).not.toContain('ada@example.com');

    const ledger = await t.admin({ method: 'GET', url: '/admin/api/stores/demo/erasures' });
    expect(ledger.statusCode).toBe(200);
    expect(ledger.json().erasures).toEqual([done.body.erasure]);
    expect(JSON.stringify(ledger.json())).not.toMatch(/ada@|mailto/);
  });

  it('answers 400 naming the field for an agent that is not one', async () => {
    expect(await erase({})).toMatchObject({ status: 400, body: { error: { field: 'agent' } } });
    expect(await erase({ agent: { name: 'no IFI' } })).toMatchObject({ status: 400, body: { error: { field: 'agent' } } });
    expect(await erase({ agent: [ADA, { mbox: 'ada@example.com' }] })).toMatchObject({ status: 400, body: { error: { field: 'agent[1]' } } });
    expect(await erase({ agents: [{ openid: 'not an iri' }] })).toMatchObject({ status: 400, body: { error: { field: 'agents[0]' } } });
    expect(await erase({ agent: ADA, dryRun: 'yes' })).toMatchObject({ status: 400, body: { error: { field: 'dryRun' } } });
    const unknown = await demo.t.admin({ method: 'POST', url: '/admin/api/stores/nope/erasures', payload: { agent: ADA } });
    expect(unknown.statusCode).toBe(404);
  });

  it('keeps a Store\'s retention: shown on the Store, set and cleared by PATCH, bad days refused naming the field', async () => {
    const { t } = demo;
    const shown = (await t.admin({ method: 'GET', url: '/admin/api/stores/demo' })).json() as StoreView;
    expect(shown.retention).toEqual({ statementsDays: null, rejectedDays: null, refusedDays: null });
    const set = await t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { retention: { statementsDays: 365, refusedDays: 7 } } });
    expect(set.statusCode).toBe(200);
    expect((set.json() as StoreView).retention).toEqual({ statementsDays: 365, rejectedDays: null, refusedDays: 7 });
    expect((await t.storage.findStoreBySlug('demo'))?.retention).toEqual({ statementsDays: 365, rejectedDays: null, refusedDays: 7 });
    const cleared = await t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { retention: { statementsDays: null } } });
    expect((cleared.json() as StoreView).retention).toEqual({ statementsDays: null, rejectedDays: null, refusedDays: 7 });
    const bad = await t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { retention: { statementsDays: 0 } } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.field).toBe('retention.statementsDays');
  });
});
