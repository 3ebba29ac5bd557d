/**
 * Load suite: a class of simulated learners, each following a course session against the real
 * service process (one API key for the course, as content ships it, and the service's default
 * limits): launch, read the bookmark (State), the course's Activity Profile and the learner's
 * Agent Profile, page through with progress statements and bookmark writes, answer questions (a
 * batch with results), complete, terminate, and read back the registration's statements.
 *
 * Learners think between steps, so it models a class rather than a benchmark. `burst` puts the
 * class in lockstep: every learner sends each step at the same instant (the teacher says "go").
 * Figures: statements and requests per second, errors (must be 0), p50/p99 latency.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fetchWith, keepAliveDispatcher, type Dispatcher } from '../lib/keep-alive';
import { createRng, uuidFrom, type Rng } from '../lib/prng';
import { createStoreAndKey, killHard, startService, xapiHeaders, type ServiceProcess } from '../lib/service';
import { formatSummary, percentile, type SummaryLine } from '../lib/stats';

export interface LoadOptions {
  learners: number;
  durationMs: number;
  burst: boolean;
  seed: number;
  /** Think time between steps, drawn uniformly. */
  thinkMs: [number, number];
  /** The p99 latency the run must stay under (omit to report it only). */
  maxP99Ms?: number;
  log?: (line: string) => void;
}

export interface LoadReport {
  seed: number;
  elapsedMs: number;
  requests: number;
  statements: number;
  errors: number;
  errorSamples: string[];
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
  statementsPerSecond: number;
  ok: boolean;
  summary: string;
}

const STORE = 'class';
const COURSE = 'http://lore.example/courses/robustness-101';
const VERBS = {
  launched: 'http://adlnet.gov/expapi/verbs/launched',
  initialized: 'http://adlnet.gov/expapi/verbs/initialized',
  progressed: 'http://adlnet.gov/expapi/verbs/progressed',
  answered: 'http://adlnet.gov/expapi/verbs/answered',
  completed: 'http://adlnet.gov/expapi/verbs/completed',
  terminated: 'http://adlnet.gov/expapi/verbs/terminated',
};
const PAGES = 5;

interface Metrics {
  latencies: number[];
  byKind: Map<string, number[]>;
  requests: number;
  statements: number;
  errors: number;
  errorSamples: string[];
}

interface Learner {
  index: number;
  agent: { mbox: string; name: string };
  rng: Rng;
}

interface Client {
  base: string;
  headers: Record<string, string>;
  dispatcher: Dispatcher | undefined;
  metrics: Metrics;
}

async function call(client: Client, kind: string, path: string, init: RequestInit, expect: number[], statements = 0): Promise<Response | null> {
  const started = performance.now();
  let response: Response;
  try {
    response = await fetchWith(client.dispatcher, `${client.base}${path}`, { ...init, headers: { ...client.headers, ...init.headers } });
    await response.clone().arrayBuffer();
  } catch (error) {
    client.metrics.errors++;
    if (client.metrics.errorSamples.length < 10) client.metrics.errorSamples.push(`${kind}: ${(error as Error).message}`);
    return null;
  }
  const ms = performance.now() - started;
  const m = client.metrics;
  m.requests++;
  m.latencies.push(ms);
  (m.byKind.get(kind) ?? m.byKind.set(kind, []).get(kind)!).push(ms);
  if (!expect.includes(response.status)) {
    m.errors++;
    if (m.errorSamples.length < 10) m.errorSamples.push(`${kind}: ${response.status} ${(await response.text()).slice(0, 200)}`);
    return null;
  }
  m.statements += statements;
  return response;
}

function statement(learner: Learner, verb: keyof typeof VERBS, registration: string, object: string, result?: Record<string, unknown>) {
  return {
    id: uuidFrom(learner.rng),
    actor: learner.agent,
    verb: { id: VERBS[verb], display: { 'en-US': verb } },
    object: { id: object, definition: { name: { 'en-US': object.split('/').at(-1) } } },
    ...(result ? { result } : {}),
    context: { registration, contextActivities: { parent: [{ id: COURSE }] }, platform: 'Lore load suite' },
    timestamp: new Date().toISOString(),
  };
}

/** One session as a list of steps; every learner's session has the same steps, so a class can go in lockstep. */
function sessionSteps(client: Client, learner: Learner): Array<() => Promise<void>> {
  const registration = uuidFrom(learner.rng);
  const agentQ = `agent=${encodeURIComponent(JSON.stringify(learner.agent))}`;
  const stateQ = `activityId=${encodeURIComponent(COURSE)}&${agentQ}&stateId=bookmark`;
  const post = (kind: string, body: unknown, count: number) => call(client, kind, `/${STORE}/xAPI/statements`, { method: 'POST', body: JSON.stringify(body) }, [200], count).then(() => undefined);
  const steps: Array<() => Promise<void>> = [
    () => post('launch', statement(learner, 'launched', registration, COURSE), 1),
    async () => {
      await call(client, 'state GET', `/${STORE}/xAPI/activities/state?${stateQ}`, { method: 'GET' }, [200, 404]);
      await call(client, 'activity profile GET', `/${STORE}/xAPI/activities/profile?activityId=${encodeURIComponent(COURSE)}&profileId=settings`, { method: 'GET' }, [200]);
    },
    async () => {
      const profile = await call(client, 'agent profile GET', `/${STORE}/xAPI/agents/profile?${agentQ}&profileId=preferences`, { method: 'GET' }, [200, 404]);
      if (profile?.status === 404) {
        await call(client, 'agent profile PUT', `/${STORE}/xAPI/agents/profile?${agentQ}&profileId=preferences`, {
          method: 'PUT',
          headers: { 'if-none-match': '*' },
          body: JSON.stringify({ language: 'en', audio: learner.rng.chance(0.5) }),
        }, [204, 412]);
      }
      await post('initialize', statement(learner, 'initialized', registration, COURSE), 1);
    },
  ];
  for (let page = 1; page <= PAGES; page++) {
    steps.push(async () => {
      await post('progress', statement(learner, 'progressed', registration, `${COURSE}/page-${page}`, { extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/progress': Math.round((page / PAGES) * 100) } }), 1);
      await call(client, 'state PUT', `/${STORE}/xAPI/activities/state?${stateQ}`, { method: 'PUT', body: JSON.stringify({ page, at: new Date().toISOString() }) }, [204]);
    });
  }
  steps.push(async () => {
    const answers = Array.from({ length: 3 }, (_, q) => {
      const correct = learner.rng.chance(0.7);
      return statement(learner, 'answered', registration, `${COURSE}/question-${q + 1}`, {
        success: correct,
        response: correct ? 'b' : 'a',
        score: { scaled: correct ? 1 : 0, raw: correct ? 1 : 0, min: 0, max: 1 },
        duration: `PT${learner.rng.int(5, 90)}S`,
      });
    });
    await post('answers batch', answers, 3);
  });
  steps.push(async () => {
    const scaled = Math.round(learner.rng.next() * 100) / 100;
    await post('completion', statement(learner, 'completed', registration, COURSE, { completion: true, success: scaled >= 0.5, score: { scaled }, duration: `PT${learner.rng.int(5, 40)}M` }), 1);
    await post('terminate', statement(learner, 'terminated', registration, COURSE), 1);
  });
  steps.push(async () => {
    await call(client, 'statements GET', `/${STORE}/xAPI/statements?registration=${registration}&limit=20`, { method: 'GET' }, [200]);
  });
  return steps;
}

/** All learners wait for each other; the last to arrive releases everyone with one shared decision. */
class Barrier {
  private waiting: Array<(go: boolean) => void> = [];
  constructor(
    private readonly parties: number,
    private readonly decide: () => boolean,
  ) {}
  arrive(): Promise<boolean> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (this.waiting.length === this.parties) {
        const go = this.decide();
        for (const release of this.waiting.splice(0)) release(go);
      }
    });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runLoadSuite(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => {});
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-suite-load-'));
  let service: ServiceProcess | null = null;
  let dispatcher: Dispatcher | undefined;
  const metrics: Metrics = { latencies: [], byKind: new Map(), requests: 0, statements: 0, errors: 0, errorSamples: [] };
  try {
    service = await startService(dataDir);
    const key = await createStoreAndKey(service, STORE);
    const setup = await fetch(`${service.url}/${STORE}/xAPI/activities/profile?activityId=${encodeURIComponent(COURSE)}&profileId=settings`, {
      method: 'PUT',
      headers: { ...xapiHeaders(key.basic), 'if-none-match': '*' },
      body: JSON.stringify({ passingScore: 0.5, pages: PAGES }),
    });
    if (setup.status !== 204) throw new Error(`setup: activity profile answered ${setup.status}`);
    dispatcher = await keepAliveDispatcher(`${service.url}/health`, options.learners);
    const client: Client = { base: service.url, headers: xapiHeaders(key.basic), dispatcher, metrics };
    const rng = createRng(options.seed);
    const learners: Learner[] = Array.from({ length: options.learners }, (_, index) => ({
      index,
      agent: { mbox: `mailto:learner-${index}@school.example`, name: `Learner ${index}` },
      rng: rng.fork(),
    }));
    const started = performance.now();
    const end = started + options.durationMs;
    const think = (learner: Learner) => sleep(learner.rng.int(options.thinkMs[0], options.thinkMs[1]));
    let progress = setInterval(() => log(`${Math.round((performance.now() - started) / 1000)} s: ${metrics.requests} requests, ${metrics.statements} statements, ${metrics.errors} errors`), 15_000);
    if (options.burst) {
      // Lockstep: one think time per wave, drawn once, then every learner sends the step together.
      const waveRng = rng.fork();
      let waveThink = 0;
      const barrier = new Barrier(options.learners, () => {
        waveThink = waveRng.int(options.thinkMs[0], options.thinkMs[1]);
        return performance.now() < end;
      });
      await Promise.all(
        learners.map(async (learner) => {
          for (;;) {
            for (const step of sessionSteps(client, learner)) {
              if (!(await barrier.arrive())) return;
              await step();
              await sleep(waveThink);
            }
          }
        }),
      );
    } else {
      await Promise.all(
        learners.map(async (learner) => {
          // A class does not start on the same millisecond.
          await think(learner);
          while (performance.now() < end) {
            for (const step of sessionSteps(client, learner)) {
              await step();
              if (performance.now() >= end) return;
              await think(learner);
            }
          }
        }),
      );
    }
    clearInterval(progress);
    progress = undefined as unknown as NodeJS.Timeout;
    const elapsedMs = performance.now() - started;
    const sorted = [...metrics.latencies].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    const p99 = percentile(sorted, 99);
    const perKind = [...metrics.byKind.entries()]
      .map(([kind, values]) => {
        const s = [...values].sort((a, b) => a - b);
        return `${kind} ${percentile(s, 50).toFixed(1)}/${percentile(s, 99).toFixed(1)}`;
      })
      .join(', ');
    const lines: SummaryLine[] = [
      { label: 'seed', value: options.seed },
      { label: 'learners, mode, duration', value: `${options.learners}, ${options.burst ? 'burst (lockstep)' : 'class (think time)'} ${options.thinkMs[0]}-${options.thinkMs[1]} ms, ${(elapsedMs / 1000).toFixed(1)} s` },
      { label: 'requests', value: `${metrics.requests} (${((metrics.requests / elapsedMs) * 1000).toFixed(1)}/s)` },
      { label: 'statements stored', value: `${metrics.statements} (${((metrics.statements / elapsedMs) * 1000).toFixed(1)}/s)` },
      { label: 'errors', value: metrics.errors === 0 ? 0 : `${metrics.errors}: ${metrics.errorSamples.slice(0, 3).join(' | ')}`, ok: metrics.errors === 0 },
      {
        label: 'latency p50 / p99',
        value: `${p50.toFixed(1)} ms / ${p99.toFixed(1)} ms${options.maxP99Ms === undefined ? '' : ` (p99 limit ${options.maxP99Ms} ms)`}`,
        ...(options.maxP99Ms === undefined ? {} : { ok: p99 <= options.maxP99Ms }),
      },
      { label: 'p50/p99 ms by request', value: perKind },
    ];
    if (metrics.requests === 0) lines.push({ label: 'no request was made', value: '', ok: false });
    return {
      seed: options.seed,
      elapsedMs,
      requests: metrics.requests,
      statements: metrics.statements,
      errors: metrics.errors,
      errorSamples: metrics.errorSamples,
      p50Ms: p50,
      p99Ms: p99,
      requestsPerSecond: (metrics.requests / elapsedMs) * 1000,
      statementsPerSecond: (metrics.statements / elapsedMs) * 1000,
      ok: lines.every((line) => line.ok !== false),
      summary: formatSummary(`Load suite${options.burst ? ' (burst)' : ''}`, lines),
    };
  } finally {
    await dispatcher?.close();
    if (service) await killHard(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
