/**
 * The benchmark's scenarios: what each request of a load run looks like. Request bodies are built
 * before the run (pools of pre-serialised statements), so the load generator spends its time
 * sending, not generating.
 */
import { randomUUID } from 'node:crypto';
import type { BenchRequest } from './load';
import { activityId, courseTitle, learnerMbox, learnerName, statementGenerator, verbDisplay, verbId } from './statements';

export interface StoreContext {
  slug: string;
  /** The API key as `Authorization` header value. */
  authorization: string;
  adminToken: string;
  /** Ids of statements known to be in the Store (for GET by id). */
  knownIds: string[];
}

export interface Scenario {
  name: string;
  /** What it shows in the table. */
  label: string;
  connections: number;
  statementsPerRequest: number;
  /** Scenarios with the same key share one baseline run (same method and body shape). */
  baselineKey: string;
  next: () => BenchRequest;
}

const XAPI_VERSION = '1.0.3';

function cycle<T>(items: T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length]!;
}

function xapiHeaders(ctx: StoreContext, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { authorization: ctx.authorization, 'x-experience-api-version': XAPI_VERSION };
  if (json) headers['content-type'] = 'application/json';
  return headers;
}

/** Learners, courses and verbs the filters ask for: common and rare ones (see statements.ts's skew). */
function learnerSample(): number[] {
  return Array.from({ length: 200 }, (_, i) => (i * 97) % 20_000).filter((n) => n % 10 !== 9);
}
function activitySample(): string[] {
  return Array.from({ length: 200 }, (_, i) => activityId(i % 60, i % 5, i % 8));
}

/**
 * What designers type in the Explorer's filters. Learners: a first and last name (about 80
 * learners share each: the name stands for all of them) or a whole name (one learner). Activities:
 * a course (`Leadership 3`: its 40 items, and those of `Leadership 33`, the words being a prefix)
 * or one of its modules (`Leadership 3, module 2`: 8 items). Verbs: a display word.
 */
function typedLearners(): string[] {
  return learnerSample().map((n, i) => (i % 2 ? learnerName(n) : learnerName(n).replace(/ \d+$/, '')));
}
function typedActivities(): string[] {
  return Array.from({ length: 120 }, (_, i) => (i % 2 ? `${courseTitle(i % 60)}, module ${i % 5}` : courseTitle(i % 60)));
}
const typedVerbs = (): string[] => Array.from({ length: 14 }, (_, i) => verbDisplay(i));

export function scenarios(ctx: StoreContext, seed: number): Scenario[] {
  const generator = statementGenerator(seed);
  const singles = Array.from({ length: 2000 }, () => JSON.stringify(generator.next()));
  const batches = Array.from({ length: 20 }, () => JSON.stringify(Array.from({ length: 100 }, () => generator.next())));
  const post = (name: string, connections: number): Scenario => {
    const body = cycle(singles);
    const headers = xapiHeaders(ctx, true);
    return {
      name,
      label: `POST 1 statement, ${connections} conn`,
      connections,
      statementsPerRequest: 1,
      baselineKey: `post-1@${connections}`,
      next: () => ({ method: 'POST', path: `/${ctx.slug}/xAPI/statements`, headers, body: body() }),
    };
  };
  const batchBody = cycle(batches);
  const singleForPut = cycle(singles);
  const jsonHeaders = xapiHeaders(ctx, true);
  const getHeaders = xapiHeaders(ctx, false);
  const adminHeaders = { authorization: `Bearer ${ctx.adminToken}` };
  const knownId = cycle(ctx.knownIds.length ? ctx.knownIds : [randomUUID()]);
  const agentQuery = cycle(learnerSample().map((n) => encodeURIComponent(JSON.stringify({ mbox: learnerMbox(n) }))));
  const explorerAgent = cycle(learnerSample().map((n) => encodeURIComponent(learnerMbox(n))));
  const activity = cycle(activitySample().map((id) => encodeURIComponent(id)));
  const explorerActivity = cycle(activitySample().map((id) => encodeURIComponent(id)));
  const verb = cycle(Array.from({ length: 14 }, (_, i) => encodeURIComponent(verbId(i))));
  const explorerSearch = (name: string, label: string, param: string, typed: string[]): Scenario => {
    const text = cycle(typed.map((t) => encodeURIComponent(t)));
    return {
      name,
      label,
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `/admin/api/stores/${ctx.slug}/statements?${param}=${text()}&limit=50`, headers: adminHeaders }),
    };
  };
  // State documents: 500 (activity, agent, stateId) keys, written then read.
  const stateKeys = Array.from({ length: 500 }, (_, i) => {
    const agent = encodeURIComponent(JSON.stringify({ mbox: learnerMbox(i) }));
    return `activityId=${encodeURIComponent(activityId(i % 50, 0, 0))}&agent=${agent}&stateId=bookmark-${i % 7}`;
  });
  const statePutKey = cycle(stateKeys);
  const stateGetKey = cycle(stateKeys);
  const stateBody = JSON.stringify({ location: 'slide-12', progress: 0.42, answers: { q1: 'b', q2: 'd', q3: ['a', 'c'] }, suspendData: 'x'.repeat(120) });
  const xapi = `/${ctx.slug}/xAPI`;
  return [
    post('post-1-c10', 10),
    post('post-1-c50', 50),
    {
      name: 'post-100',
      label: 'POST batch of 100, 10 conn',
      connections: 10,
      statementsPerRequest: 100,
      baselineKey: 'post-100@10',
      next: () => ({ method: 'POST', path: `${xapi}/statements`, headers: jsonHeaders, body: batchBody() }),
    },
    {
      name: 'put',
      label: 'PUT statement with id',
      connections: 10,
      statementsPerRequest: 1,
      baselineKey: 'put@10',
      next: () => ({ method: 'PUT', path: `${xapi}/statements?statementId=${randomUUID()}`, headers: jsonHeaders, body: singleForPut() }),
    },
    {
      name: 'get-id',
      label: 'GET statement by id',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `${xapi}/statements?statementId=${knownId()}`, headers: getHeaders }),
    },
    {
      name: 'get-agent',
      label: 'GET agent=, limit=50',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `${xapi}/statements?agent=${agentQuery()}&limit=50`, headers: getHeaders }),
    },
    {
      name: 'get-activity',
      label: 'GET activity=, limit=50',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `${xapi}/statements?activity=${activity()}&limit=50`, headers: getHeaders }),
    },
    {
      name: 'get-verb',
      label: 'GET verb=, limit=50',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `${xapi}/statements?verb=${verb()}&limit=50`, headers: getHeaders }),
    },
    {
      name: 'explorer-agent',
      label: 'Explorer search agent=',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `/admin/api/stores/${ctx.slug}/statements?agent=${explorerAgent()}&limit=50`, headers: adminHeaders }),
    },
    {
      name: 'explorer-activity',
      label: 'Explorer search activity=',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `/admin/api/stores/${ctx.slug}/statements?activity=${explorerActivity()}&limit=50`, headers: adminHeaders }),
    },
    explorerSearch('explorer-actor-name', 'Explorer search by a learner\'s name', 'agent', typedLearners()),
    explorerSearch('explorer-verb-word', 'Explorer search by a verb\'s word', 'verb', typedVerbs()),
    explorerSearch('explorer-activity-word', 'Explorer search by words of an Activity\'s name', 'activity', typedActivities()),
    {
      name: 'state-put',
      label: 'PUT state document',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'state-put@10',
      next: () => ({ method: 'PUT', path: `${xapi}/activities/state?${statePutKey()}`, headers: jsonHeaders, body: stateBody }),
    },
    {
      name: 'state-get',
      label: 'GET state document',
      connections: 10,
      statementsPerRequest: 0,
      baselineKey: 'get@10',
      next: () => ({ method: 'GET', path: `${xapi}/activities/state?${stateGetKey()}`, headers: getHeaders }),
    },
  ];
}
