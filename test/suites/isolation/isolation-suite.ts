/**
 * Isolation suite: a key of Store A can neither read nor write Store B's data, for every
 * resource, under both addresses (/<slug>/xAPI and the earlier /xapi), including by guessing ids
 * that exist in both Stores and by replaying a `more` link of one Store on the other; the admin
 * explorer, metrics and live events are scoped by slug; revoked, expired and rotated-out keys are
 * refused at once. Every value written to B carries the marker "B-secret"; a probe that sees it
 * through A (or sees B's data change after a write through A) is a leak.
 *
 * In-process (startService, real HTTP on 127.0.0.1): the process boundary is not the point here.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../../../src-server/service/service';
import { formatSummary, type SummaryLine } from '../lib/stats';

export interface IsolationOptions {
  log?: (line: string) => void;
}

export interface IsolationReport {
  probes: number;
  leaks: string[];
  ok: boolean;
  summary: string;
}

const ADMIN_TOKEN = 'isolation-suite-admin-token-0123456789';
const ACTIVITY = 'http://lore.example/isolation/shared-activity';
const B_ONLY_ACTIVITY = 'http://lore.example/isolation/b-only-activity';
const AGENT = { mbox: 'mailto:shared-learner@example.com' };
const B_MARK = 'B-secret';
const A_MARK = 'A-visible';

interface Key {
  id: string;
  secret: string;
  token: string;
  basic: string;
}

function statementFor(id: string, mark: string, activity = ACTIVITY, extra: Record<string, unknown> = {}) {
  return {
    id,
    actor: { ...AGENT, name: `${mark} name` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': `${mark} verb` } },
    object: { id: activity, definition: { name: { 'en-US': `${mark} definition` } } },
    result: { response: `${mark} response` },
    ...extra,
  };
}

function multipartWithAttachment(statement: Record<string, unknown>, content: string): { body: Buffer; contentType: string } {
  const data = Buffer.from(content);
  const sha2 = createHash('sha256').update(data).digest('hex');
  const withAttachment = {
    ...statement,
    attachments: [{ usageType: 'http://lore.example/usage', display: { 'en-US': 'file' }, contentType: 'text/plain', length: data.length, sha2 }],
  };
  const boundary = 'isolation-boundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(withAttachment)}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: binary\r\nX-Experience-API-Hash: ${sha2}\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/mixed; boundary=${boundary}` };
}

export async function runIsolationSuite(options: IsolationOptions = {}): Promise<IsolationReport> {
  const log = options.log ?? (() => {});
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-suite-isolation-'));
  let service: RunningService | null = null;
  let probes = 0;
  const leaks: string[] = [];
  try {
    service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN });
    const base = service.url;
    const admin = (path: string, init: RequestInit = {}) =>
      fetch(`${base}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      });
    const newKey = async (slug: string, body: Record<string, unknown> = {}): Promise<Key> => {
      const response = await admin(`/stores/${slug}/keys`, { method: 'POST', body: JSON.stringify({ name: 'isolation', ...body }) });
      if (response.status !== 201) throw new Error(`key for ${slug}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Key;
    };
    for (const slug of ['iso-a', 'iso-b']) {
      const response = await admin('/stores', { method: 'POST', body: JSON.stringify({ slug, name: slug }) });
      if (response.status !== 201) throw new Error(`store ${slug}: ${response.status}`);
    }
    const keyA = await newKey('iso-a');
    const keyB = await newKey('iso-b');
    const auth = (key: Key, scheme: 'basic' | 'bearer' = 'basic') => (scheme === 'basic' ? `Basic ${key.basic}` : `Bearer ${key.token}`);
    const xapi = (key: Key | string, path: string, init: RequestInit & { contentType?: string } = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: {
          authorization: typeof key === 'string' ? key : auth(key),
          'x-experience-api-version': '1.0.3',
          'content-type': init.contentType ?? 'application/json',
          ...init.headers,
        },
      });
    const must = async (response: Response, status: number, what: string) => {
      if (response.status !== status) throw new Error(`setup: ${what} answered ${response.status}: ${await response.text()}`);
      return response;
    };

    // ---- Setup: the same ids in both Stores, B's values marked.
    const shared = randomUUID();
    const bOnly = randomUUID();
    const bVoided = randomUUID();
    const bAttached = randomUUID();
    const aAttached = randomUUID();
    for (const [key, mark] of [
      [keyA, A_MARK],
      [keyB, B_MARK],
    ] as const) {
      const slug = key === keyA ? 'iso-a' : 'iso-b';
      await must(await xapi(key, `/${slug}/xAPI/statements`, { method: 'POST', body: JSON.stringify(statementFor(shared, mark)) }), 200, 'shared statement');
      for (let i = 0; i < 4; i++) {
        await must(await xapi(key, `/${slug}/xAPI/statements`, { method: 'POST', body: JSON.stringify(statementFor(randomUUID(), mark)) }), 200, 'statement');
      }
      const docs = [
        ['activities/state', `activityId=${encodeURIComponent(ACTIVITY)}&agent=${encodeURIComponent(JSON.stringify(AGENT))}&stateId=shared`],
        ['activities/profile', `activityId=${encodeURIComponent(ACTIVITY)}&profileId=shared`],
        ['agents/profile', `agent=${encodeURIComponent(JSON.stringify(AGENT))}&profileId=shared`],
      ];
      for (const [resource, query] of docs) {
        // Profiles are created with If-None-Match: * (1.0.3 §3.1 asks for a precondition on PUT).
        await must(await xapi(key, `/${slug}/xAPI/${resource}?${query}`, { method: 'PUT', headers: { 'if-none-match': '*' }, body: JSON.stringify({ owner: `${mark} document` }) }), 204, resource!);
      }
    }
    await must(await xapi(keyB, '/iso-b/xAPI/statements', { method: 'POST', body: JSON.stringify(statementFor(bOnly, B_MARK, B_ONLY_ACTIVITY)) }), 200, 'B-only statement');
    await must(await xapi(keyB, '/iso-b/xAPI/statements', { method: 'POST', body: JSON.stringify(statementFor(bVoided, B_MARK)) }), 200, 'B statement to void');
    await must(
      await xapi(keyB, '/iso-b/xAPI/statements', {
        method: 'POST',
        body: JSON.stringify({ actor: AGENT, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: bVoided } }),
      }),
      200,
      'B voiding',
    );
    const bMultipart = multipartWithAttachment(statementFor(bAttached, B_MARK), `${B_MARK} attachment`);
    await must(await xapi(keyB, '/iso-b/xAPI/statements', { method: 'POST', body: bMultipart.body, contentType: bMultipart.contentType }), 200, 'B attachment');
    const aMultipart = multipartWithAttachment(statementFor(aAttached, A_MARK), `${A_MARK} attachment`);
    await must(await xapi(keyA, '/iso-a/xAPI/statements', { method: 'POST', body: aMultipart.body, contentType: aMultipart.contentType }), 200, 'A attachment');
    for (const resource of ['activities/state', 'activities/profile', 'agents/profile']) {
      const owner = resource === 'agents/profile' ? `agent=${encodeURIComponent(JSON.stringify(AGENT))}` : `activityId=${encodeURIComponent(ACTIVITY)}`;
      const extra = resource === 'activities/state' ? `&agent=${encodeURIComponent(JSON.stringify(AGENT))}` : '';
      const id = resource === 'activities/state' ? 'stateId' : 'profileId';
      await must(await xapi(keyB, `/iso-b/xAPI/${resource}?${owner}${extra}&${id}=b-only`, { method: 'PUT', headers: { 'if-none-match': '*' }, body: JSON.stringify({ owner: `${B_MARK} only` }) }), 204, 'B-only document');
    }

    /** What B holds, read through B's key: compared before and after the write probes. */
    const snapshotB = async (): Promise<string> => {
      const parts: string[] = [];
      let url = `/iso-b/xAPI/statements?limit=3`;
      while (url) {
        const page = (await (await xapi(keyB, url)).json()) as { statements: Array<{ id: string; result?: unknown; object?: unknown }>; more: string };
        parts.push(...page.statements.map((s) => `${s.id} ${JSON.stringify(s.result)} ${JSON.stringify(s.object)}`));
        url = page.more;
      }
      for (const id of [shared, bOnly, bAttached]) parts.push(`${id}: ${(await xapi(keyB, `/iso-b/xAPI/statements?statementId=${id}`)).status}`);
      parts.push(`voided ${bVoided}: ${(await xapi(keyB, `/iso-b/xAPI/statements?voidedStatementId=${bVoided}`)).status}`);
      for (const [resource, query] of documentQueries) {
        const response = await xapi(keyB, `/iso-b/xAPI/${resource}?${query}`);
        parts.push(`${resource}?${query}: ${response.status} ${await response.text()}`);
      }
      return parts.sort().join('\n');
    };
    const agentQ = `agent=${encodeURIComponent(JSON.stringify(AGENT))}`;
    const activityQ = `activityId=${encodeURIComponent(ACTIVITY)}`;
    const documentQueries: Array<[string, string]> = [
      ['activities/state', `${activityQ}&${agentQ}&stateId=shared`],
      ['activities/state', `${activityQ}&${agentQ}&stateId=b-only`],
      ['activities/state', `${activityQ}&${agentQ}`],
      ['activities/profile', `${activityQ}&profileId=shared`],
      ['activities/profile', `${activityQ}&profileId=b-only`],
      ['activities/profile', activityQ],
      ['agents/profile', `${agentQ}&profileId=shared`],
      ['agents/profile', `${agentQ}&profileId=b-only`],
      ['agents/profile', agentQ],
    ];
    const bBefore = await snapshotB();

    // ---- Probes
    /** One probe: `leak` returns what leaked, or null. */
    const probe = async (name: string, leak: () => Promise<string | null>) => {
      probes++;
      try {
        const found = await leak();
        if (found) leaks.push(`${name}: ${found}`);
      } catch (error) {
        leaks.push(`${name}: the probe failed: ${(error as Error).message}`);
      }
    };
    /** A read through A's key must not show B's marker; `expect` is the status it must answer. */
    const readProbe = (name: string, key: Key | string, path: string, expect: number | number[], mark = B_MARK) =>
      probe(name, async () => {
        const response = await xapi(key, path);
        const text = await response.text();
        const allowed = Array.isArray(expect) ? expect : [expect];
        if (text.includes(mark)) return `answered ${response.status} with "${mark}" in the body`;
        if (!allowed.includes(response.status)) return `answered ${response.status}, expected ${allowed.join(' or ')}`;
        return null;
      });

    const statementReads = [
      '',
      `?statementId=${shared}`,
      `?statementId=${bOnly}`,
      `?statementId=${bAttached}&attachments=true`,
      `?voidedStatementId=${bVoided}`,
      `?${agentQ}`,
      `?${agentQ}&related_agents=true`,
      `?activity=${encodeURIComponent(B_ONLY_ACTIVITY)}&related_activities=true`,
      `?verb=${encodeURIComponent('http://adlnet.gov/expapi/verbs/voided')}`,
      '?attachments=true',
      '?format=canonical',
      '?format=exact&limit=100',
    ];
    const expectFor = (query: string) => (query.includes(bOnly) || query.includes(bAttached) || query.includes(bVoided) ? 404 : 200);
    for (const scheme of ['basic', 'bearer'] as const) {
      for (const prefix of ['/iso-a/xAPI', '/xapi', '/iso-a/XAPI']) {
        for (const query of statementReads) await readProbe(`A ${scheme} GET ${prefix}/statements${query}`, auth(keyA, scheme), `${prefix}/statements${query}`, expectFor(query));
        await readProbe(`A ${scheme} GET ${prefix}/activities (shared id)`, auth(keyA, scheme), `${prefix}/activities?${activityQ}`, 200);
        await readProbe(`A ${scheme} GET ${prefix}/activities (B-only id)`, auth(keyA, scheme), `${prefix}/activities?activityId=${encodeURIComponent(B_ONLY_ACTIVITY)}`, [200, 404]);
        await readProbe(`A ${scheme} GET ${prefix}/agents`, auth(keyA, scheme), `${prefix}/agents?${agentQ}`, 200);
        for (const [resource, query] of documentQueries) {
          await readProbe(`A ${scheme} GET ${prefix}/${resource}?${query}`, auth(keyA, scheme), `${prefix}/${resource}?${query}`, query.includes('b-only') ? 404 : 200);
        }
      }
    }
    // The shared id answers A's statement, not B's.
    await probe('A GET statementId shared answers A\'s own statement', async () => {
      const body = (await (await xapi(keyA, `/iso-a/xAPI/statements?statementId=${shared}`)).json()) as { result?: { response?: string } };
      return body.result?.response === `${A_MARK} response` ? null : `answered ${JSON.stringify(body.result)}`;
    });
    // A's key on B's address: refused for every resource and method, nothing of B in the answer.
    const cross: Array<[string, string, string | undefined]> = [];
    for (const query of statementReads) cross.push(['GET', `/iso-b/xAPI/statements${query}`, undefined]);
    cross.push(['POST', '/iso-b/xAPI/statements', JSON.stringify(statementFor(randomUUID(), A_MARK))]);
    cross.push(['PUT', `/iso-b/xAPI/statements?statementId=${randomUUID()}`, JSON.stringify(statementFor(randomUUID(), A_MARK))]);
    cross.push(['GET', `/iso-b/xAPI/activities?${activityQ}`, undefined], ['GET', `/iso-b/xAPI/agents?${agentQ}`, undefined]);
    for (const [resource, query] of documentQueries) {
      for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
        if (method !== 'GET' && method !== 'DELETE' && !query.includes('Id=')) continue;
        if (method === 'DELETE' && resource !== 'activities/state' && !query.includes('Id=')) continue;
        cross.push([method, `/iso-b/xAPI/${resource}?${query}`, method === 'PUT' || method === 'POST' ? JSON.stringify({ owner: `${A_MARK} overwrite` }) : undefined]);
      }
    }
    for (const scheme of ['basic', 'bearer'] as const) {
      for (const [method, path, body] of cross) {
        for (const variant of [path, path.replace('/iso-b/xAPI', '/iso-b/xapi')]) {
          await probe(`A ${scheme} ${method} ${variant} (B's address)`, async () => {
            const response = await xapi(auth(keyA, scheme), variant, { method, body });
            const text = await response.text();
            if (text.includes(B_MARK)) return `answered ${response.status} with B's data`;
            return response.status === 403 ? null : `answered ${response.status}, expected 403`;
          });
        }
      }
    }
    // Mixed credentials: A's key id with B's secret, and the reverse.
    for (const [id, secret] of [
      [keyA.id, keyB.secret],
      [keyB.id, keyA.secret],
    ] as const) {
      const basic = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
      await readProbe(`mixed credentials ${id.slice(0, 14)}… on A`, basic, '/iso-a/xAPI/statements', 401, A_MARK);
      await readProbe(`mixed credentials ${id.slice(0, 14)}… on B`, basic, '/iso-b/xAPI/statements', 401);
      await readProbe(`mixed credentials ${id.slice(0, 14)}… on /xapi`, basic, '/xapi/statements', 401);
    }

    // `more` links: a page link of A replayed on B, with B's key and A's.
    const firstA = (await (await xapi(keyA, '/iso-a/xAPI/statements?limit=1')).json()) as { more: string };
    const firstB = (await (await xapi(keyB, '/iso-b/xAPI/statements?limit=1')).json()) as { more: string };
    if (!firstA.more || !firstB.more) throw new Error('setup: no more link');
    const tokenA = new URL(firstA.more, base).searchParams.get('more')!;
    const tokenB = new URL(firstB.more, base).searchParams.get('more')!;
    await readProbe('A follows its own more links: nothing of B', keyA, firstA.more, 200);
    await probe('A follows every more link of its own Store: nothing of B', async () => {
      let url = '/iso-a/xAPI/statements?limit=2';
      for (let page = 0; url && page < 50; page++) {
        const response = await xapi(keyA, url);
        const text = await response.text();
        if (text.includes(B_MARK)) return `page ${page} shows B's data`;
        url = (JSON.parse(text) as { more: string }).more;
      }
      return null;
    });
    await readProbe('B key with A\'s more token on B', keyB, `/iso-b/xAPI/statements?more=${tokenA}`, [200, 400], A_MARK);
    await readProbe('B key with A\'s more token on /xapi', keyB, `/xapi/statements?more=${tokenA}`, [200, 400], A_MARK);
    await readProbe('A key with B\'s more token on A', keyA, `/iso-a/xAPI/statements?more=${tokenB}`, [200, 400]);
    await readProbe('A key with B\'s more token on /xapi', keyA, `/xapi/statements?more=${tokenB}`, [200, 400]);
    await readProbe('A key with B\'s more link as given', keyA, firstB.more, 403);

    // Writes through A with B's ids: they act on A only, and reveal nothing about B.
    await probe('A POSTs a statement under an id only B has: accepted in A (a 409 would reveal B)', async () => {
      const response = await xapi(keyA, '/iso-a/xAPI/statements', { method: 'POST', body: JSON.stringify(statementFor(bOnly, A_MARK)) });
      return response.status === 200 ? null : `answered ${response.status}: ${(await response.text()).slice(0, 200)}`;
    });
    await probe('A PUTs a statement under an id only B has (attachment id)', async () => {
      const response = await xapi(keyA, `/iso-a/xAPI/statements?statementId=${bAttached}`, { method: 'PUT', body: JSON.stringify(statementFor(bAttached, A_MARK)) });
      return response.status === 204 ? null : `answered ${response.status}`;
    });
    await probe('A voids the shared id and B\'s voided id in A', async () => {
      for (const target of [shared, bVoided, bOnly]) {
        const response = await xapi(keyA, '/iso-a/xAPI/statements', {
          method: 'POST',
          body: JSON.stringify({ actor: AGENT, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: target } }),
        });
        if (response.status !== 200) return `voiding ${target} answered ${response.status}: ${(await response.text()).slice(0, 200)}`;
      }
      return null;
    });
    await probe('A\'s voiding of the shared id left B\'s statement unvoided', async () => {
      const response = await xapi(keyB, `/iso-b/xAPI/statements?statementId=${shared}`);
      return response.status === 200 ? null : `B's statement answered ${response.status}`;
    });
    for (const [resource, query] of documentQueries) {
      if (!query.includes('Id=shared')) continue;
      await probe(`A PUTs ${resource} shared with B's ETag as If-Match`, async () => {
        const bEtag = (await xapi(keyB, `/iso-b/xAPI/${resource}?${query}`)).headers.get('etag')!;
        const response = await xapi(keyA, `/iso-a/xAPI/${resource}?${query}`, { method: 'PUT', headers: { 'if-match': bEtag }, body: JSON.stringify({ owner: `${A_MARK} again` }) });
        return response.status === 412 ? null : `answered ${response.status}`;
      });
      await probe(`A writes and deletes ${resource} shared in A`, async () => {
        const put = await xapi(keyA, `/iso-a/xAPI/${resource}?${query}`, { method: 'POST', body: JSON.stringify({ extra: A_MARK }) });
        const del = await xapi(keyA, `/iso-a/xAPI/${resource}?${query}`, { method: 'DELETE' });
        return put.status === 204 && del.status === 204 ? null : `answered ${put.status} / ${del.status}`;
      });
    }
    await probe('A deletes every State of the shared activity and agent in A', async () => {
      const response = await xapi(keyA, `/iso-a/xAPI/activities/state?${activityQ}&${agentQ}`, { method: 'DELETE' });
      return response.status === 204 ? null : `answered ${response.status}`;
    });
    // The legacy address with A's key writes into A.
    await probe('A POSTs through /xapi: the statement lands in A, not B', async () => {
      const id = randomUUID();
      const post = await xapi(keyA, '/xapi/statements', { method: 'POST', body: JSON.stringify(statementFor(id, A_MARK)) });
      const inB = await xapi(keyB, `/iso-b/xAPI/statements?statementId=${id}`);
      const inA = await xapi(keyA, `/iso-a/xAPI/statements?statementId=${id}`);
      return post.status === 200 && inB.status === 404 && inA.status === 200 ? null : `post ${post.status}, in B ${inB.status}, in A ${inA.status}`;
    });
    await probe('B is exactly as before after every probe through A', async () => {
      const after = await snapshotB();
      if (after === bBefore) return null;
      const before = new Set(bBefore.split('\n'));
      return `changed: ${after.split('\n').filter((line) => !before.has(line)).slice(0, 3).join(' | ')}`;
    });

    // ---- Admin: explorer, metrics, events scoped by slug.
    await probe('admin explorer of A shows nothing of B', async () => {
      let url = '/stores/iso-a/statements?limit=100';
      let count = 0;
      for (let page = 0; url && page < 20; page++) {
        const response = await admin(url);
        const text = await response.text();
        if (response.status !== 200) return `answered ${response.status}`;
        if (text.includes(B_MARK)) return 'a record of B';
        const body = JSON.parse(text) as { records: unknown[]; next: string | null };
        count += body.records.length;
        url = body.next ? `/stores/iso-a/statements?limit=100&cursor=${encodeURIComponent(body.next)}` : '';
      }
      return count > 0 ? null : 'no records at all';
    });
    await probe('admin explorer of A filtered by B-only activity is empty', async () => {
      const body = (await (await admin(`/stores/iso-a/statements?activity=${encodeURIComponent(B_ONLY_ACTIVITY)}`)).json()) as { records: unknown[] };
      return body.records.length === 0 ? null : `${body.records.length} records`;
    });
    await probe('admin suggestions and search by name of A know no name of B', async () => {
      for (const field of ['agent', 'verb', 'activity']) {
        const own = await (await admin(`/stores/iso-a/suggestions?field=${field}&prefix=${encodeURIComponent(A_MARK)}`)).text();
        if (!own.includes(A_MARK)) return `${field}: not even A's own name is suggested`;
        const response = await admin(`/stores/iso-a/suggestions?field=${field}&prefix=${encodeURIComponent(B_MARK)}`);
        const text = await response.text();
        if (response.status !== 200) return `${field}: answered ${response.status}`;
        if (text.includes(B_MARK)) return `${field}: a name of B`;
      }
      const response = await admin(`/stores/iso-a/statements?agent=${encodeURIComponent(B_MARK)}`);
      const text = await response.text();
      if (response.status !== 200) return `the search by B's learner name answered ${response.status}`;
      return (JSON.parse(text) as { records: unknown[] }).records.length === 0 ? null : 'the search by B\'s learner name found records';
    });
    await probe('admin metrics of A count A\'s statements only', async () => {
      const a = (await (await admin('/metrics/ingestion?store=iso-a')).json()) as { totals: { accepted: number; voided: number }; topActivities: Array<{ id: string }> };
      const b = (await (await admin('/metrics/ingestion?store=iso-b')).json()) as { totals: { accepted: number; voided: number } };
      const all = (await (await admin('/metrics/ingestion')).json()) as { totals: { accepted: number; voided: number } };
      if (a.topActivities.some((activity) => activity.id === B_ONLY_ACTIVITY)) return 'B\'s activity in A\'s top activities';
      const sum = (t: { accepted: number; voided: number }) => t.accepted + t.voided;
      return sum(a.totals) + sum(b.totals) === sum(all.totals) && sum(a.totals) > 0 ? null : `A ${JSON.stringify(a.totals)} B ${JSON.stringify(b.totals)} all ${JSON.stringify(all.totals)}`;
    });
    await probe('admin events of A carry no event of B', async () => {
      const controller = new AbortController();
      const response = await fetch(`${base}/admin/api/events?store=iso-a&detail=statements`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: controller.signal });
      const reader = response.body!.getReader();
      const seen: string[] = [];
      const bId = randomUUID();
      const aId = randomUUID();
      await xapi(keyB, '/iso-b/xAPI/statements', { method: 'POST', body: JSON.stringify(statementFor(bId, B_MARK)) });
      await xapi(keyA, '/iso-a/xAPI/statements', { method: 'POST', body: JSON.stringify(statementFor(aId, A_MARK)) });
      // Events arrive in order: once A's (written second) is here, B's would have been too.
      const deadline = Date.now() + 5000;
      let text = '';
      while (!text.includes(aId) && Date.now() < deadline) {
        const chunk = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), deadline - Date.now()))]);
        if (chunk === null || chunk.done) break;
        text += Buffer.from(chunk.value).toString('utf8');
      }
      controller.abort();
      await reader.cancel().catch(() => undefined);
      for (const line of text.split('\n')) if (line.startsWith('data:')) seen.push(line);
      if (!text.includes(aId)) return 'A\'s own event never came';
      return text.includes(bId) || seen.some((line) => line.includes('"iso-b"')) ? 'an event of B' : null;
    });
    await probe('admin cannot reach a key of B under A\'s slug', async () => {
      const response = await admin(`/stores/iso-a/keys/${keyB.id}`);
      return response.status === 404 ? null : `answered ${response.status}`;
    });
    await probe('admin cannot revoke a key of B under A\'s slug', async () => {
      const response = await admin(`/stores/iso-a/keys/${keyB.id}`, { method: 'DELETE' });
      const still = await xapi(keyB, '/iso-b/xAPI/statements?limit=1');
      return response.status === 404 && still.status === 200 ? null : `answered ${response.status}; B's key then ${still.status}`;
    });

    // ---- Revoked, expired and rotated-out keys are refused at once.
    const revoked = await newKey('iso-a');
    await probe('a revoked key is refused on the next request', async () => {
      const before = await xapi(revoked, '/iso-a/xAPI/statements?limit=1');
      const revoke = await admin(`/stores/iso-a/keys/${revoked.id}`, { method: 'DELETE' });
      const results = await Promise.all([xapi(revoked, '/iso-a/xAPI/statements?limit=1'), xapi(auth(revoked, 'bearer'), '/xapi/statements?limit=1'), xapi(revoked, '/iso-a/xAPI/statements', { method: 'POST', body: JSON.stringify(statementFor(randomUUID(), A_MARK)) })]);
      const statuses = results.map((r) => r.status);
      return before.status === 200 && revoke.status === 200 && statuses.every((s) => s === 401) ? null : `before ${before.status}, revoke ${revoke.status}, after ${statuses.join('/')}`;
    });
    const expiresAt = new Date(Date.now() + 1500);
    const expiring = await newKey('iso-a', { expiresAt: expiresAt.toISOString() });
    const rotating = await newKey('iso-a');
    const rotation = await admin(`/stores/iso-a/keys/${rotating.id}/rotate`, { method: 'POST', body: JSON.stringify({ oldKeyExpiresAt: new Date(Date.now() + 1500).toISOString() }) });
    const rotated = (await rotation.json()) as { replacement: Key; previous: { expiresAt: string } };
    await probe('an expiring key works before its expiry', async () => {
      const response = await xapi(expiring, '/iso-a/xAPI/statements?limit=1');
      return response.status === 200 ? null : `answered ${response.status}`;
    });
    await probe('a rotated key\'s replacement belongs to A only', async () => {
      const onB = await xapi(rotated.replacement, '/iso-b/xAPI/statements?limit=1');
      const onA = await xapi(rotated.replacement, '/iso-a/xAPI/statements?limit=1');
      return onB.status === 403 && onA.status === 200 ? null : `on B ${onB.status}, on A ${onA.status}`;
    });
    // Wait for the instant of expiry itself (a point in time, not a guess), then ask at once.
    const expiry = Math.max(expiresAt.getTime(), Date.parse(rotated.previous.expiresAt));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now() + 5)));
    await probe('an expired key is refused at once', async () => {
      const response = await xapi(expiring, '/iso-a/xAPI/statements?limit=1');
      return response.status === 401 ? null : `answered ${response.status}`;
    });
    await probe('a rotated-out key is refused at once after its expiry', async () => {
      const old = await xapi(rotating, '/iso-a/xAPI/statements?limit=1');
      const replacement = await xapi(rotated.replacement, '/iso-a/xAPI/statements?limit=1');
      return old.status === 401 && replacement.status === 200 ? null : `old ${old.status}, replacement ${replacement.status}`;
    });
    log(`${probes} probes, ${leaks.length} leaks`);
  } finally {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const lines: SummaryLine[] = [
    { label: 'probes made', value: probes },
    { label: 'leaks found', value: leaks.length, ok: leaks.length === 0 },
  ];
  const summary = formatSummary('Isolation suite', lines) + (leaks.length > 0 ? `\n${leaks.map((leak) => `  leak: ${leak}`).join('\n')}` : '');
  return { probes, leaks, ok: leaks.length === 0, summary };
}
