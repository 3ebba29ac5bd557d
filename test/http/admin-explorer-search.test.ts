/**
 * The Statement Explorer's filters as designers type them (GET /admin/api/stores/:slug/statements)
 * and the suggestions of its autocompletes (GET /admin/api/stores/:slug/suggestions): names and
 * words read against what the Store holds, exact identifiers as they are, bad input answered 400
 * with the field named.
 */
import { describe, expect, it } from 'vitest';
import { MAX_WORD_MATCHES } from '../../src-server/admin/explorer-filters';
import { useDemoStore } from './test-app';

const ctx = useDemoStore();

const LMS = 'https://lms.example.com';
const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
const ATTEMPTED = 'http://adlnet.gov/expapi/verbs/attempted';
const SAFETY_4 = 'http://example.com/safety/module-4';
const SAFETY_5 = 'http://example.com/safety/module-5';
const FINANCE_4 = 'http://example.com/finance/module-4';

const ADA = { name: 'Ada Lovelace', mbox: 'mailto:ada@example.com' };
const ADAM = { name: 'Adam Smith', mbox: 'mailto:adam@example.com' };
const GRACE = { name: 'Grace Hopper', account: { homePage: LMS, name: 'ghopper' } };

const ACTIVITY_NAMES: Record<string, string> = { [SAFETY_4]: 'Safety, module 4', [SAFETY_5]: 'Safety, module 5', [FINANCE_4]: 'Finance, module 4' };

function said(actor: Record<string, unknown>, verb: string, activity: string): Record<string, unknown> {
  return {
    actor,
    verb: { id: verb, display: { 'en-US': verb === COMPLETED ? 'completed' : 'attempted' } },
    object: { id: activity, definition: { name: { 'en-US': ACTIVITY_NAMES[activity] } } },
  };
}

/** Ada, Adam and Grace, each with a statement or two: their ids by who and what. */
async function sendPeople(): Promise<Record<string, string>> {
  const bodies = {
    adaCompletedSafety4: said(ADA, COMPLETED, SAFETY_4),
    adaAttemptedFinance4: said(ADA, ATTEMPTED, FINANCE_4),
    adamCompletedSafety5: said(ADAM, COMPLETED, SAFETY_5),
    graceAttemptedSafety4: said(GRACE, ATTEMPTED, SAFETY_4),
  };
  const response = await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: Object.values(bodies) });
  expect(response.statusCode, response.body).toBe(200);
  const ids = response.json() as string[];
  return Object.fromEntries(Object.keys(bodies).map((name, i) => [name, ids[i]!]));
}

async function search(query: Record<string, string>) {
  return ctx.t.admin({ method: 'GET', url: `/admin/api/stores/demo/statements?${new URLSearchParams(query).toString()}` });
}

/** The ids found, newest first. */
async function found(query: Record<string, string>): Promise<string[]> {
  const response = await search(query);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { records: Array<{ statementId: string }> }).records.map((r) => r.statementId);
}

async function suggestions(query: Record<string, string>) {
  const response = await ctx.t.admin({ method: 'GET', url: `/admin/api/stores/demo/suggestions?${new URLSearchParams(query).toString()}` });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { suggestions: Array<{ value: string; label: string; detail: string }> }).suggestions;
}

async function refusal(response: Awaited<ReturnType<typeof search>>) {
  expect(response.statusCode, response.body).toBe(400);
  return (response.json() as { error: { code: string; field: string; message: string } }).error;
}

describe('the Explorer filters as people type them', () => {
  it('finds a learner by name or part of it, email with or without mailto:, account name, or agent JSON', async () => {
    const id = await sendPeople();
    const ada = [id.adaAttemptedFinance4, id.adaCompletedSafety4];
    expect(await found({ agent: 'Ada Lovel' })).toEqual(ada);
    expect(await found({ agent: 'lovelace' })).toEqual(ada);
    expect(await found({ agent: 'ADA' })).toEqual([id.adamCompletedSafety5, ...ada]);
    expect(await found({ agent: 'ada@example.com' })).toEqual(ada);
    expect(await found({ agent: 'mailto:ada@EXAMPLE.com' })).toEqual(ada);
    expect(await found({ agent: JSON.stringify({ mbox: ADA.mbox }) })).toEqual(ada);
    expect(await found({ agent: 'ghopper' })).toEqual([id.graceAttemptedSafety4]);
    expect(await found({ agent: 'Grace Hop' })).toEqual([id.graceAttemptedSafety4]);
    expect(await found({ agent: 'Bob' })).toEqual([]);
  });

  it('finds a verb by a display word or its IRI, and an Activity by words of its name or its IRI', async () => {
    const id = await sendPeople();
    expect(await found({ verb: 'completed' })).toEqual([id.adamCompletedSafety5, id.adaCompletedSafety4]);
    expect(await found({ verb: 'attem' })).toEqual([id.graceAttemptedSafety4, id.adaAttemptedFinance4]);
    expect(await found({ verb: COMPLETED })).toEqual([id.adamCompletedSafety5, id.adaCompletedSafety4]);
    expect(await found({ activity: 'Module 4' })).toEqual([id.graceAttemptedSafety4, id.adaAttemptedFinance4, id.adaCompletedSafety4]);
    expect(await found({ activity: 'safety module' })).toEqual([id.graceAttemptedSafety4, id.adamCompletedSafety5, id.adaCompletedSafety4]);
    expect(await found({ activity: SAFETY_5 })).toEqual([id.adamCompletedSafety5]);
    expect(await found({ agent: 'Ada', verb: 'completed', activity: 'Module 4' })).toEqual([id.adaCompletedSafety4]);
    expect(await found({ activity: 'Module 9' })).toEqual([]);
  });

  it('answers 400 naming the field for what cannot be read, or for words that match too many', async () => {
    for (const [query, field] of [
      [{ agent: '{"mbox": "ada@example.com"}' }, 'agent'],
      [{ agent: '{not json' }, 'agent'],
      [{ agent: '!!!' }, 'agent'],
      [{ agent: '   ' }, 'agent'],
      [{ verb: '???' }, 'verb'],
      [{ activity: '—' }, 'activity'],
      [{ verb: 'x'.repeat(3000) }, 'verb'],
    ] as const) {
      expect([query, (await refusal(await search(query))).field]).toEqual([query, field]);
    }
    // More learners than a name may stand for.
    const many = Array.from({ length: MAX_WORD_MATCHES + 1 }, (_, n) => said({ name: `Sam ${n}`, mbox: `mailto:sam${n}@example.com` }, COMPLETED, SAFETY_4));
    for (let start = 0; start < many.length; start += 500) {
      const sent = await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: many.slice(start, start + 500) });
      expect(sent.statusCode, sent.body).toBe(200);
    }
    const tooMany = await refusal(await search({ agent: 'Sam' }));
    expect(tooMany).toMatchObject({ code: 'invalid_parameter', field: 'agent' });
    expect(tooMany.message).toMatch(/matches more than 2,000 learners/);
    expect(await found({ agent: 'Sam 1999' })).toHaveLength(1);
  }, 60_000);
});

describe('suggestions for the Explorer filters', () => {
  it('suggests learners by name with what the filter takes, verbs and Activities by name with their IRI', async () => {
    await sendPeople();
    expect(await suggestions({ field: 'agent', prefix: 'ada' })).toEqual([
      { value: ADA.mbox, label: 'Ada Lovelace', detail: 'ada@example.com' },
      { value: ADAM.mbox, label: 'Adam Smith', detail: 'adam@example.com' },
    ]);
    expect(await suggestions({ field: 'agent', prefix: 'Hopper' })).toEqual([
      { value: JSON.stringify({ account: GRACE.account }), label: 'Grace Hopper', detail: `ghopper at ${LMS}` },
    ]);
    expect(await suggestions({ field: 'agent', prefix: 'adam@ex' })).toEqual([{ value: ADAM.mbox, label: 'Adam Smith', detail: 'adam@example.com' }]);
    expect(await suggestions({ field: 'verb', prefix: 'comp' })).toEqual([{ value: COMPLETED, label: 'completed', detail: COMPLETED }]);
    expect(await suggestions({ field: 'verb', prefix: 'http://adlnet.gov/expapi/verbs/a' })).toEqual([{ value: ATTEMPTED, label: 'attempted', detail: ATTEMPTED }]);
    expect((await suggestions({ field: 'activity', prefix: 'module 4' })).map((s) => s.label)).toEqual(['Finance, module 4', 'Safety, module 4']);
    expect(await suggestions({ field: 'activity', prefix: 'safety', limit: '1' })).toEqual([{ value: SAFETY_4, label: 'Safety, module 4', detail: SAFETY_4 }]);
    expect(await suggestions({ field: 'agent', prefix: '{"mbox"' })).toEqual([]);
    expect(await suggestions({ field: 'agent', prefix: '...' })).toEqual([]);
  });

  it('gives values that search for exactly the learner suggested', async () => {
    const id = await sendPeople();
    const [grace] = await suggestions({ field: 'agent', prefix: 'grace' });
    expect(await found({ agent: grace!.value })).toEqual([id.graceAttemptedSafety4]);
    const [adam] = await suggestions({ field: 'agent', prefix: 'adam' });
    expect(await found({ agent: adam!.value })).toEqual([id.adamCompletedSafety5]);
  });

  it('answers 400 naming the field for a bad request, 404 for an unknown Store', async () => {
    for (const [query, field] of [
      [{ field: 'learner', prefix: 'ada' }, 'field'],
      [{ field: 'agent' }, 'prefix'],
      [{ field: 'agent', prefix: '  ' }, 'prefix'],
      [{ field: 'verb', prefix: 'c', limit: '0' }, 'limit'],
      [{ field: 'verb', prefix: 'c', other: 'x' }, ''],
    ] as const) {
      const response = await ctx.t.admin({ method: 'GET', url: `/admin/api/stores/demo/suggestions?${new URLSearchParams(query).toString()}` });
      expect([query, (await refusal(response)).field ?? '']).toEqual([query, field]);
    }
    expect((await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/nope/suggestions?field=agent&prefix=a' })).statusCode).toBe(404);
  });
});
