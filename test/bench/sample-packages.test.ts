/**
 * The Test Bench's sample course packages (test/fixtures/packages/samples) build, and really run:
 * Chromium opens each one as a launcher would (docs/test-bench-rules.md 1.1, 3.2) against a small
 * LMS + LRS stand-in in this file, and the statements the page sent are what the sample promises.
 * This proves the samples before they are used against the real service.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LaunchData } from '@xapi/cmi5';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSamplePackage, SAMPLE_NAMES, type SampleName } from '../fixtures/packages/samples/build-sample';
import { findChromium } from '../e2e/console-harness';

const chromiumPath = findChromium();
if (!chromiumPath) console.warn('sample packages not run in a browser: no Chromium at /usr/bin/chromium (apt-get install chromium, or set CHROMIUM_PATH)');

const VERB = {
  attempted: 'http://adlnet.gov/expapi/verbs/attempted',
  answered: 'http://adlnet.gov/expapi/verbs/answered',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  passed: 'http://adlnet.gov/expapi/verbs/passed',
  initialized: 'http://adlnet.gov/expapi/verbs/initialized',
  terminated: 'http://adlnet.gov/expapi/verbs/terminated',
  experienced: 'http://adlnet.gov/expapi/verbs/experienced',
};
const CMI5_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/cmi5';
const MOVEON_CATEGORY = 'https://w3id.org/xapi/cmi5/context/categories/moveon';
const SESSION_ID = 'https://w3id.org/xapi/cmi5/context/extensions/sessionid';
const MASTERY_SCORE = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Agent {
  objectType?: string;
  name?: string;
  mbox?: string;
  account?: { homePage: string; name: string };
}
interface Activity {
  objectType?: string;
  id: string;
  definition?: { type?: string };
}
/** What these tests read of a statement. */
interface Statement {
  id?: string;
  actor: Agent;
  verb: { id: string };
  object: Activity;
  result?: { success?: boolean; completion?: boolean; response?: string; duration?: string; score?: { scaled?: number } };
  context?: {
    registration?: string;
    extensions?: Record<string, unknown>;
    contextActivities?: { grouping?: Activity[]; category?: Activity[] };
  };
  timestamp?: string;
}
interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  status: number;
}

/** The identifier of an agent (the `agent` query parameter of the document resources). */
function agentKey(agent: Agent): string {
  return agent.mbox ?? (agent.account ? `${agent.account.homePage}|${agent.account.name}` : JSON.stringify(agent));
}

const CONTENT_TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', xml: 'application/xml' };

/**
 * One origin playing the package host (/packages/<name>/…), the LMS (/lms/fetch/<session>: the cmi5
 * fetch URL) and a minimal LRS (/xapi/: about, statements, State, Agent Profile).
 */
class StandIn {
  readonly packages = new Map<string, Map<string, Buffer>>();
  readonly requests: RecordedRequest[] = [];
  readonly statements: Statement[] = [];
  /** State documents by activityId|agent|registration|stateId. */
  readonly states = new Map<string, { contentType: string; body: string }>();
  /** Authorization values the LRS accepts. */
  readonly credentials = new Set<string>();
  /** cmi5 fetch URLs by session: the token, and whether it was handed out. */
  readonly fetchTokens = new Map<string, { token: string; used: boolean }>();
  private server: Server | undefined;
  origin = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  stateKey(activityId: string, agent: Agent, registration: string | null, stateId: string): string {
    return [activityId, agentKey(agent), registration ?? '', stateId].join('|');
  }

  /** Requests whose path starts with `prefix`, in order. */
  requestsTo(prefix: string): RecordedRequest[] {
    return this.requests.filter((request) => request.path.startsWith(prefix));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.origin);
    const method = request.method ?? 'GET';
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const answer = (status: number, json?: unknown) => {
      this.requests.push({ method, path: url.pathname, query: url.searchParams, authorization: request.headers.authorization, status });
      if (json === undefined) response.writeHead(status).end();
      else response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    };

    if (url.pathname.startsWith('/packages/')) {
      const [name, ...rest] = url.pathname.slice('/packages/'.length).split('/');
      const file = this.packages.get(name ?? '')?.get(rest.join('/'));
      if (!file) return answer(404, { error: 'no such file' });
      this.requests.push({ method, path: url.pathname, query: url.searchParams, authorization: undefined, status: 200 });
      const extension = url.pathname.slice(url.pathname.lastIndexOf('.') + 1);
      response.writeHead(200, { 'content-type': CONTENT_TYPES[extension] ?? 'application/octet-stream' }).end(file);
      return;
    }

    if (url.pathname.startsWith('/lms/fetch/')) {
      // docs/test-bench-rules.md 3.3: POST only; always 200, a token once, then an error body.
      if (method !== 'POST') return answer(405, { 'error-code': '3', 'error-text': 'POST only' });
      const session = this.fetchTokens.get(url.pathname.slice('/lms/fetch/'.length));
      if (!session) return answer(200, { 'error-code': '2', 'error-text': 'unknown session' });
      if (session.used) return answer(200, { 'error-code': '1', 'error-text': 'already used' });
      session.used = true;
      return answer(200, { 'auth-token': session.token });
    }

    if (url.pathname === '/favicon.ico') return answer(204);
    if (!url.pathname.startsWith('/xapi/')) return answer(404, { error: 'not here' });
    if (!this.credentials.has(request.headers.authorization ?? '')) return answer(401, { error: 'unknown credentials' });
    const resource = url.pathname.slice('/xapi/'.length);
    const query = url.searchParams;

    if (resource === 'about' && method === 'GET') return answer(200, { version: ['1.0.3', '2.0.0'] });

    if (resource === 'statements') {
      if (method === 'POST') {
        const parsed = JSON.parse(body) as Statement | Statement[];
        const ids: string[] = [];
        for (const statement of Array.isArray(parsed) ? parsed : [parsed]) {
          const stored = { ...statement, id: statement.id ?? randomUUID() };
          this.statements.push(stored);
          ids.push(stored.id);
        }
        return answer(200, ids);
      }
      if (method === 'PUT') {
        const statementId = query.get('statementId');
        if (!statementId) return answer(400, { error: 'statementId required' });
        this.statements.push({ ...(JSON.parse(body) as Statement), id: statementId });
        return answer(204);
      }
    }

    if (resource === 'activities/state') {
      const activityId = query.get('activityId');
      const agent = query.get('agent');
      const stateId = query.get('stateId');
      if (!activityId || !agent || !stateId) return answer(400, { error: 'activityId, agent and stateId required' });
      const key = this.stateKey(activityId, JSON.parse(agent) as Agent, query.get('registration'), stateId);
      if (method === 'PUT' || method === 'POST') {
        this.states.set(key, { contentType: request.headers['content-type'] ?? 'application/octet-stream', body });
        return answer(204);
      }
      if (method === 'GET') {
        const document = this.states.get(key);
        if (!document) return answer(404, { error: 'no such document' });
        this.requests.push({ method, path: url.pathname, query, authorization: request.headers.authorization, status: 200 });
        response.writeHead(200, { 'content-type': document.contentType }).end(document.body);
        return;
      }
    }

    // No learner preferences were seeded: @xapi/cmi5 treats the 404 as {}.
    if (resource === 'agents/profile' && method === 'GET') return answer(404, { error: 'no such document' });

    return answer(404, { error: `no ${method} ${resource} here` });
  }
}

/** The manifest's launch path: `<launch>` in tincan.xml, `<url>` of the (only) AU in cmi5.xml. */
function launchPath(files: Map<string, Buffer>): string {
  const manifest = (files.get('tincan.xml') ?? files.get('cmi5.xml'))?.toString('utf8') ?? '';
  const match = /<launch[^>]*>([^<]+)<\/launch>/.exec(manifest) ?? /<url>([^<]+)<\/url>/.exec(manifest);
  if (!match?.[1]) throw new Error('no launch URL in the manifest');
  return match[1].trim();
}

/** Launch query as launchers write it: every value encodeURIComponent'ed. */
function launchQuery(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
}

const basic = (key: string, secret: string) => Buffer.from(`${key}:${secret}`).toString('base64');

describe('sample packages: build', () => {
  const expected: Record<SampleName, { manifest: string; id: string; html: string; script: string; library: string }> = {
    'tincan-minimal': { manifest: 'tincan.xml', id: 'https://lore.example/samples/tincan-minimal', html: 'index.html', script: 'course.js', library: 'TinCan client library' },
    'cmi5-minimal': { manifest: 'cmi5.xml', id: 'https://lore.example/samples/cmi5-minimal', html: 'au/index.html', script: 'au/au.js', library: 'LMS.LaunchData' },
    'cmi5-wrong': { manifest: 'cmi5.xml', id: 'https://lore.example/samples/cmi5-wrong', html: 'au/index.html', script: 'au/au.js', library: 'LMS.LaunchData' },
  };

  it.each(SAMPLE_NAMES)('%s: manifest, launch page and bundled script', async (name) => {
    const files = await buildSamplePackage(name);
    const want = expected[name];
    expect([...files.keys()].sort()).toEqual([want.html, want.manifest, want.script].sort());
    expect(files.get(want.manifest)!.toString('utf8')).toContain(`id="${want.id}"`);
    expect(launchPath(files)).toBe(want.html);
    const scriptName = want.script.slice(want.script.lastIndexOf('/') + 1);
    expect(files.get(want.html)!.toString('utf8')).toContain(`<script src="${scriptName}"></script>`);
    const script = files.get(want.script)!.toString('utf8');
    expect(script).toContain(want.library);
    expect(script).not.toMatch(/^\s*(import|export)\s/m);
  });
});

describe.skipIf(!chromiumPath)('sample packages: run in Chromium against a stand-in LMS and LRS', () => {
  const lms = new StandIn();
  let browser: Browser;

  beforeAll(async () => {
    await lms.start();
    for (const name of SAMPLE_NAMES) lms.packages.set(name, await buildSamplePackage(name));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await lms.stop();
  });

  /** Opens the launch URL and waits for the page to say it is done (or failed). */
  async function run(url: string): Promise<{ done: string | null; error: string | null; log: string; pageErrors: string[]; failedResponses: string[] }> {
    lms.requests.length = 0;
    lms.statements.length = 0;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const pageErrors: string[] = [];
      const failedResponses: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        // A 4xx shows up as "Failed to load resource" without its URL: failedResponses names them.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
      });
      page.on('response', (response) => {
        if (response.status() >= 400) failedResponses.push(`${response.status()} ${new URL(response.url()).pathname}`);
      });
      await page.goto(url);
      await page.waitForFunction("document.body.dataset.done === 'true' || document.body.dataset.error !== undefined", null, { timeout: 15_000 });
      const body = page.locator('body');
      return {
        done: await body.getAttribute('data-done'),
        error: await body.getAttribute('data-error'),
        log: (await page.locator('#log').textContent()) ?? '',
        pageErrors,
        failedResponses,
      };
    } finally {
      await context.close();
    }
  }

  it('tincan-minimal: TinCanJS sends attempted, answered, the bookmark, completed and passed with the launch registration', async () => {
    const courseId = 'https://lore.example/samples/tincan-minimal';
    const registration = randomUUID();
    const auth = `Basic ${basic('bench-key', 'bench-secret')}`;
    lms.credentials.add(auth);
    const actor = { objectType: 'Agent', name: 'Ada Test', mbox: 'mailto:ada@example.org' };
    const files = lms.packages.get('tincan-minimal')!;
    const url = `${lms.origin}/packages/tincan-minimal/${launchPath(files)}?${launchQuery({
      endpoint: `${lms.origin}/xapi/`,
      auth,
      actor: JSON.stringify(actor),
      registration,
      activity_id: courseId,
    })}`;

    const outcome = await run(url);
    expect(outcome.error, outcome.log).toBeNull();
    expect(outcome.done).toBe('true');
    expect(outcome.pageErrors).toEqual([]);
    expect(outcome.failedResponses).toEqual([]);
    expect(outcome.log).toContain('state bookmark: saved');

    expect(lms.statements.map((statement) => statement.verb.id)).toEqual([VERB.attempted, VERB.answered, VERB.completed, VERB.passed]);
    expect(lms.statements.map((statement) => statement.object.id)).toEqual([courseId, `${courseId}/quiz`, courseId, courseId]);
    for (const statement of lms.statements) {
      expect(statement.id).toMatch(UUID);
      expect(statement.actor.mbox).toBe(actor.mbox);
      expect(statement.context?.registration).toBe(registration);
    }
    const [attempted, answered, completed, passed] = lms.statements;
    expect(attempted!.result).toBeUndefined();
    expect(answered!.object.definition?.type).toBe('http://adlnet.gov/expapi/activities/cmi.interaction');
    expect(answered!.result).toEqual({ success: true, response: 'b' });
    for (const statement of [completed!, passed!]) {
      expect(statement.result).toEqual({ completion: true, success: true, score: { scaled: 0.9 }, duration: 'PT1M' });
    }
    // TinCanJS PUTs each statement with its own id.
    expect(lms.requestsTo('/xapi/statements').map((request) => [request.method, request.status])).toEqual(Array(4).fill(['PUT', 204]));

    const bookmark = lms.states.get(lms.stateKey(courseId, actor, registration, 'bookmark'));
    expect(bookmark?.contentType).toMatch(/^application\/json/);
    expect(JSON.parse(bookmark!.body)).toEqual({ page: 2 });
    // Every LRS request carried the launch's auth, and nothing else was echoed onto it.
    for (const request of lms.requestsTo('/xapi/')) {
      expect(request.authorization).toBe(auth);
      expect([...request.query.keys()].filter((name) => !['statementId', 'stateId', 'activityId', 'agent', 'registration'].includes(name))).toEqual([]);
    }
  });

  it('tincan-minimal: a refused statement shows as data-error, not done', async () => {
    const files = lms.packages.get('tincan-minimal')!;
    const url = `${lms.origin}/packages/tincan-minimal/${launchPath(files)}?${launchQuery({
      endpoint: `${lms.origin}/xapi/`,
      auth: `Basic ${basic('bench-key', 'not-the-secret')}`,
      actor: JSON.stringify({ objectType: 'Agent', mbox: 'mailto:ada@example.org' }),
      registration: randomUUID(),
      activity_id: 'https://lore.example/samples/tincan-minimal',
    })}`;
    const outcome = await run(url);
    expect(outcome.done).toBeNull();
    expect(outcome.error).toMatch(/^attempted not stored: HTTP 401/);
    expect(lms.statements).toEqual([]);
  });

  /** Seeds what an LMS writes before a cmi5 launch (3.2) and returns the AU's launch URL. */
  function launchCmi5(name: 'cmi5-minimal' | 'cmi5-wrong') {
    const publisherId = `https://lore.example/samples/${name}/au/1`;
    const registration = randomUUID();
    const sessionId = randomUUID();
    // The LMS's own AU activity id: never the publisher id.
    const activityId = `${lms.origin}/bench/activities/au/${randomUUID()}`;
    const actor = { objectType: 'Agent', account: { homePage: lms.origin, name: 'bench-learner-1' } };
    const token = basic(`session-${sessionId}`, 'session-secret');
    lms.credentials.add(`Basic ${token}`);
    lms.fetchTokens.set(sessionId, { token, used: false });
    const launchData: LaunchData = {
      contextTemplate: {
        contextActivities: { grouping: [{ objectType: 'Activity', id: publisherId }] },
        extensions: { [SESSION_ID]: sessionId },
      },
      launchMode: 'Normal',
      moveOn: 'CompletedAndPassed',
      masteryScore: 0.8,
    };
    lms.states.set(lms.stateKey(activityId, actor, registration, 'LMS.LaunchData'), { contentType: 'application/json', body: JSON.stringify(launchData) });
    const files = lms.packages.get(name)!;
    const url = `${lms.origin}/packages/${name}/${launchPath(files)}?${launchQuery({
      endpoint: `${lms.origin}/xapi/`,
      fetch: `${lms.origin}/lms/fetch/${sessionId}`,
      actor: JSON.stringify(actor),
      registration,
      activityId,
    })}`;
    return { url, publisherId, registration, sessionId, activityId, actor, authorization: `Basic ${token}` };
  }

  /** What every cmi5 AU sends before its first statement: one POST to the fetch URL, LaunchData, learner preferences. */
  function expectCmi5Startup(launch: ReturnType<typeof launchCmi5>): void {
    expect(lms.requestsTo('/lms/fetch/').map((request) => [request.method, request.status])).toEqual([['POST', 200]]);
    const launchData = lms.requestsTo('/xapi/activities/state').find((request) => request.query.get('stateId') === 'LMS.LaunchData');
    expect(launchData?.method).toBe('GET');
    expect(launchData?.status).toBe(200);
    expect(launchData?.query.get('activityId')).toBe(launch.activityId);
    expect(launchData?.query.get('registration')).toBe(launch.registration);
    expect(lms.requestsTo('/xapi/agents/profile').map((request) => request.query.get('profileId'))).toEqual(['cmi5LearnerPreferences']);
    for (const request of lms.requestsTo('/xapi/')) expect(request.authorization).toBe(launch.authorization);
    expect(lms.requests.filter((request) => request.status === 401)).toEqual([]);
  }

  const categories = (statement: Statement) => (statement.context?.contextActivities?.category ?? []).map((activity) => activity.id);

  it('cmi5-minimal: @xapi/cmi5 sends initialized, completed, passed and terminated with the context template', async () => {
    const launch = launchCmi5('cmi5-minimal');
    const outcome = await run(launch.url);
    expect(outcome.error, outcome.log).toBeNull();
    expect(outcome.done).toBe('true');
    expect(outcome.pageErrors).toEqual([]);
    // No learner preferences were seeded; the library reads the 404 as none.
    expect(outcome.failedResponses).toEqual(['404 /xapi/agents/profile']);
    expectCmi5Startup(launch);

    expect(lms.statements.map((statement) => statement.verb.id)).toEqual([VERB.initialized, VERB.completed, VERB.passed, VERB.terminated]);
    for (const statement of lms.statements) {
      expect(statement.id).toMatch(UUID);
      expect(statement.timestamp).toMatch(/Z$/);
      expect(statement.actor).toEqual(launch.actor);
      expect(statement.object.id).toBe(launch.activityId);
      expect(statement.context?.registration).toBe(launch.registration);
      expect(statement.context?.extensions?.[SESSION_ID]).toBe(launch.sessionId);
      expect(statement.context?.contextActivities?.grouping).toEqual([{ objectType: 'Activity', id: launch.publisherId }]);
      expect(categories(statement)).toContain(CMI5_CATEGORY);
    }
    const [initialized, completed, passed, terminated] = lms.statements;
    expect(categories(initialized!)).not.toContain(MOVEON_CATEGORY);
    expect(categories(terminated!)).not.toContain(MOVEON_CATEGORY);
    expect(categories(completed!)).toContain(MOVEON_CATEGORY);
    expect(categories(passed!)).toContain(MOVEON_CATEGORY);
    expect(completed!.result).toMatchObject({ completion: true, duration: expect.stringMatching(/^P/) });
    expect(passed!.result).toMatchObject({ success: true, score: { scaled: 0.9 }, duration: expect.stringMatching(/^P/) });
    expect(passed!.context?.extensions?.[MASTERY_SCORE]).toBe(0.8);
    expect(terminated!.result?.duration).toMatch(/^P/);
  });

  it('cmi5-minimal: without LMS.LaunchData initialize() fails, and the page says so', async () => {
    const launch = launchCmi5('cmi5-minimal');
    lms.states.delete(lms.stateKey(launch.activityId, launch.actor, launch.registration, 'LMS.LaunchData'));
    const outcome = await run(launch.url);
    expect(outcome.done).toBeNull();
    expect(outcome.error).toMatch(/^GET \S*activities\/state\?\S*stateId=LMS\.LaunchData\S*: HTTP 404/);
    expect(lms.statements).toEqual([]);
  });

  it('cmi5-wrong: a statement without the context template, and one after terminated', async () => {
    const launch = launchCmi5('cmi5-wrong');
    const outcome = await run(launch.url);
    expect(outcome.error, outcome.log).toBeNull();
    expect(outcome.done).toBe('true');
    expect(outcome.pageErrors).toEqual([]);
    // No learner preferences were seeded; the library reads the 404 as none.
    expect(outcome.failedResponses).toEqual(['404 /xapi/agents/profile']);
    expectCmi5Startup(launch);

    expect(lms.statements.map((statement) => statement.verb.id)).toEqual([VERB.initialized, VERB.attempted, VERB.terminated, VERB.experienced]);
    for (const statement of lms.statements) {
      expect(statement.actor).toEqual(launch.actor);
      expect(statement.object.id).toBe(launch.activityId);
      expect(statement.context?.registration).toBe(launch.registration);
    }
    const [, attempted, , experienced] = lms.statements;
    // Not allowed: no session id, no publisher grouping, no cmi5 category.
    expect(attempted!.context).toEqual({ registration: launch.registration });
    // Allowed in form (template, no cmi5 category), but sent after terminated.
    expect(experienced!.context?.extensions?.[SESSION_ID]).toBe(launch.sessionId);
    expect(experienced!.context?.contextActivities?.grouping).toEqual([{ objectType: 'Activity', id: launch.publisherId }]);
    expect(categories(experienced!)).toEqual([]);
  });
});
