/**
 * Hostile-input suite: thousands of generated bad requests (generator.ts) against every endpoint
 * of the real service process. Figures: requests sent, answers >= 500 (must be 0), whether the
 * service is alive afterwards (health and a statement round trip), its RSS before and after.
 * LORE_SUITE_TRACE=1 also prints every request that got no answer (other than a reset).
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, createStoreAndKey, isRunning, killHard, rssBytes, startService, xapiHeaders, type ServiceProcess } from '../lib/service';
import { formatSummary, type SummaryLine } from '../lib/stats';
import { generateRequest, type HostileContext, type HostileRequest } from './generator';
import { sendHttp, sendRaw, type Outcome } from './send';

export interface HostileOptions {
  requests: number;
  seed: number;
  concurrency: number;
  /** Send only these request numbers (to reproduce a failure). */
  only?: number[];
  /** The service's RSS may grow by at most this much over the run. */
  rssGrowthLimitBytes: number;
  log?: (line: string) => void;
}

/** Longer than the sender's own idle timeouts: only a request the service holds forever gets here. */
const HUNG_MS = 20_000;

interface HostileFailure {
  index: number;
  request: HostileRequest;
  outcome: Outcome;
}

export interface HostileReport {
  seed: number;
  sent: number;
  statusCounts: Record<string, number>;
  serverErrors: HostileFailure[];
  /** Requests the service never finished answering. */
  hung: HostileFailure[];
  /** Requests that got no answer at all (the connection ended): informational. */
  unanswered: number;
  crashed: boolean;
  aliveAfter: boolean;
  rssBefore: number | null;
  rssAfter: number | null;
  ok: boolean;
  summary: string;
}

function describeRequest(failure: HostileFailure, seed: number): string {
  const { request, outcome } = failure;
  const headers = request.headers.map(([n, v]) => `${n}: ${v.length > 80 ? `${v.slice(0, 80)}… (${v.length} chars)` : v}`).join(' | ');
  const body = request.body === null ? 'none' : `${request.body.length} bytes: ${JSON.stringify(request.body.subarray(0, 200).toString('latin1'))}`;
  return [
    `#${request.index} (${request.label}) → ${outcome.status ?? outcome.error}`,
    `    ${request.method} ${request.path.length > 300 ? `${request.path.slice(0, 300)}…` : request.path}${request.raw ? ' [raw socket]' : ''}`,
    `    headers: ${headers}`,
    `    body: ${body}`,
    `    answer: ${outcome.preview?.slice(0, 300) ?? ''}`,
    `    reproduce: npm run suite:hostile -- --seed ${seed} --only ${request.index}`,
  ].join('\n');
}

async function setUp(service: ServiceProcess): Promise<HostileContext> {
  const a = await createStoreAndKey(service, 'fuzz-a');
  const b = await createStoreAndKey(service, 'fuzz-b');
  await createStoreAndKey(service, 'fuzz-victim');
  const decoy = (await (await service.admin('/stores/fuzz-a/keys', { method: 'POST', body: JSON.stringify({ name: 'decoy' }) })).json()) as { id: string };
  const victimKey = (await (await service.admin('/stores/fuzz-victim/keys', { method: 'POST', body: JSON.stringify({ name: 'victim' }) })).json()) as { id: string };
  const statementId = randomUUID();
  const write = await fetch(`${service.url}/fuzz-a/xAPI/statements`, {
    method: 'POST',
    headers: xapiHeaders(a.basic),
    body: JSON.stringify({ id: statementId, actor: { mbox: 'mailto:hostile@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/answered' }, object: { id: 'http://lore.example/hostile/activity' } }),
  });
  if (write.status !== 200) throw new Error(`setup statement answered ${write.status}`);
  const keyId = Buffer.from(a.basic, 'base64').toString('utf8').split(':')[0]!;
  return {
    slug: 'fuzz-a',
    otherSlug: 'fuzz-b',
    victimSlug: 'fuzz-victim',
    victimKeyId: victimKey.id,
    basic: a.basic,
    bearer: a.token,
    otherBasic: b.basic,
    keyId,
    decoyKeyId: decoy.id,
    adminToken: ADMIN_TOKEN,
    statementId,
  };
}

async function roundTrip(service: ServiceProcess, basic: string, log: (line: string) => void): Promise<boolean> {
  const fail = async (what: string, response: Response) => {
    log(`round trip: ${what} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    return false;
  };
  try {
    const health = await fetch(`${service.url}/health`);
    if (health.status !== 200) return fail('GET /health', health);
    const id = randomUUID();
    const post = await fetch(`${service.url}/fuzz-a/xAPI/statements`, {
      method: 'POST',
      headers: xapiHeaders(basic),
      body: JSON.stringify({ id, actor: { mbox: 'mailto:after@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: 'http://lore.example/after' } }),
    });
    if (post.status !== 200) return fail('POST statements', post);
    const get = await fetch(`${service.url}/fuzz-a/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(basic) });
    if (get.status !== 200) return fail('GET statement', get);
    return ((await get.json()) as { id: string }).id === id;
  } catch (error) {
    log(`round trip: ${(error as Error).message}`);
    return false;
  }
}

export async function runHostileSuite(options: HostileOptions): Promise<HostileReport> {
  const log = options.log ?? (() => {});
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-suite-hostile-'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  let service: ServiceProcess | null = null;
  const statusCounts: Record<string, number> = {};
  const serverErrors: HostileFailure[] = [];
  let sent = 0;
  let unanswered = 0;
  const hung: HostileFailure[] = [];
  let crashed = false;
  try {
    // The rate limit off: a limit would answer most of the run 429 before any parser saw it.
    service = await startService(dataDir, { LRS_RATE_LIMIT: '0' });
    const ctx = await setUp(service);
    const base = new URL(service.url);
    const rssBefore = rssBytes(service.child.pid);
    const indexes = options.only ?? Array.from({ length: options.requests }, (_, i) => i);
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < indexes.length && !crashed) {
          const index = indexes[next++]!;
          const request = generateRequest(options.seed, index, ctx);
          let watchdog: NodeJS.Timeout | undefined;
          const outcome = await Promise.race([
            request.raw ? sendRaw(base, request) : sendHttp(agent, base, request),
            new Promise<Outcome>((resolve) => (watchdog = setTimeout(() => resolve({ status: null, error: 'hung' }), HUNG_MS))),
          ]);
          clearTimeout(watchdog);
          if (outcome.error === 'hung') {
            hung.push({ index, request, outcome });
            log(describeRequest({ index, request, outcome }, options.seed));
          }
          sent++;
          const key = outcome.status === null ? `no answer (${outcome.error})` : String(outcome.status);
          statusCounts[key] = (statusCounts[key] ?? 0) + 1;
          if (outcome.status === null) {
            unanswered++;
            if (process.env['LORE_SUITE_TRACE'] && outcome.error !== 'ECONNRESET') log(describeRequest({ index, request, outcome }, options.seed));
          }
          if (outcome.status !== null && outcome.status >= 500) {
            serverErrors.push({ index, request, outcome });
            log(describeRequest({ index, request, outcome }, options.seed));
          }
          if (outcome.error === 'ECONNREFUSED' || !isRunning(service!)) crashed = true;
          if (sent % 1000 === 0) log(`${sent} requests, ${serverErrors.length} answers >= 500, ${Math.round((Date.now() - started) / 1000)} s`);
        }
      }),
    );
    if (crashed) log(`the service is gone after request ${sent}:\n${service.output().slice(-2000)}`);
    const aliveAfter = !crashed && (await roundTrip(service, ctx.basic, log));
    const rssAfter = rssBytes(service.child.pid);
    const growth = rssBefore !== null && rssAfter !== null ? rssAfter - rssBefore : null;
    const mb = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(0)} MB`);
    const lines: SummaryLine[] = [
      { label: 'seed', value: options.seed },
      { label: 'requests sent', value: sent, ok: sent === indexes.length },
      { label: 'answers >= 500', value: serverErrors.length, ok: serverErrors.length === 0 },
      { label: 'requests left unanswered for 20 s', value: hung.length, ok: hung.length === 0 },
      { label: 'service alive afterwards (health + statement round trip)', value: aliveAfter ? 'yes' : 'NO', ok: aliveAfter },
      { label: 'RSS before / after', value: `${mb(rssBefore)} / ${mb(rssAfter)} (limit +${mb(options.rssGrowthLimitBytes)})`, ok: growth === null || growth <= options.rssGrowthLimitBytes },
      { label: 'connections ended without an answer', value: unanswered },
      {
        label: 'answers by status',
        value: Object.entries(statusCounts)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([status, count]) => `${status}: ${count}`)
          .join(', '),
      },
    ];
    const summary = formatSummary('Hostile-input suite', lines) + ([...serverErrors, ...hung].length > 0 ? `\n${[...serverErrors, ...hung].slice(0, 10).map((f) => describeRequest(f, options.seed)).join('\n')}` : '');
    return { seed: options.seed, sent, statusCounts, serverErrors, hung, unanswered, crashed, aliveAfter, rssBefore, rssAfter, ok: lines.every((l) => l.ok !== false), summary };
  } finally {
    agent.destroy();
    if (service) await killHard(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
