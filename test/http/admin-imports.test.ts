/**
 * Importing statements (docs/import.md) over real sockets: a second app listening on a port holds
 * the source Store (several pages, a voided statement); the importing app pulls from it, or reads
 * an NDJSON file made from the source's GET /statements answers. The Store imported into answers
 * GET /statements as the source does: the same statements, ids, stored times, timestamps,
 * authorities and order, the voided one voided.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, statement, type CreatedKey, type TestApp } from './test-app';

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided';

interface Job {
  id: string;
  state: string;
  counts: Record<string, number>;
  problems: Array<{ kind: string; line?: number; statementId?: string; message: string }>;
  error: string | null;
  secret?: unknown;
}

let source: TestApp;
let sourceKey: CreatedKey;
let sourceUrl: string;
let target: TestApp;

beforeEach(async () => {
  source = await buildTestApp();
  await source.app.listen({ port: 0, host: '127.0.0.1' });
  sourceUrl = `http://127.0.0.1:${(source.app.server.address() as { port: number }).port}`;
  await source.createStore('origin');
  sourceKey = await source.createKey('origin');
  // Three statements a page: the pull follows `more` across several.
  target = await buildTestApp({ importPageSize: 3 });
  await target.createStore('copy');
});

afterEach(async () => {
  await target?.close();
  await source?.close();
});

/** Eight statements one by one (distinct stored times), then one voiding the third. Returns the voided id. */
async function fillSource(): Promise<string> {
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    const id = randomUUID();
    ids.push(id);
    const body = statement({ id, object: { objectType: 'Activity', id: `http://example.com/activities/${i}` }, ...(i % 2 === 0 ? { timestamp: `2024-0${(i % 9) + 1}-01T10:00:00.000Z` } : {}) });
    const response = await source.xapi(sourceKey, { method: 'POST', url: '/origin/xapi/statements', payload: body });
    expect(response.statusCode, response.body).toBe(200);
  }
  const voiding = statement({ id: randomUUID(), verb: { id: VOIDED, display: { 'en-US': 'voided' } }, object: { objectType: 'StatementRef', id: ids[2] } });
  const response = await source.xapi(sourceKey, { method: 'POST', url: '/origin/xapi/statements', payload: voiding });
  expect(response.statusCode, response.body).toBe(200);
  return ids[2]!;
}

/** Every statement GET /statements lists, oldest first, following `more`. */
async function listAll(app: TestApp, key: CreatedKey, slug: string): Promise<Array<Record<string, unknown>>> {
  const all: Array<Record<string, unknown>> = [];
  let url = `/${slug}/xapi/statements?ascending=true&limit=4`;
  for (;;) {
    const response = await app.xapi(key, { method: 'GET', url });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { statements: Array<Record<string, unknown>>; more: string };
    all.push(...body.statements);
    if (!body.more) return all;
    url = body.more;
  }
}

async function waitForEnd(app: TestApp, slug: string, id: string): Promise<Job> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await app.admin({ method: 'GET', url: `/admin/api/stores/${slug}/imports/${id}` });
    expect(response.statusCode, response.body).toBe(200);
    const job = response.json() as Job;
    if (job.state === 'finished' || job.state === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`the import did not end: ${response.body}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function pull(app: TestApp, slug: string, body: Record<string, unknown>) {
  return app.admin({ method: 'POST', url: `/admin/api/stores/${slug}/imports`, payload: body });
}

function kept(statements: Array<Record<string, unknown>>) {
  return statements.map(({ id, stored, timestamp, authority, verb, object, version }) => ({ id, stored, timestamp, authority, verb, object, version }));
}

describe('a pull from another LRS', () => {
  it('imports every statement as the source stored it, across pages, the voided one voided', async () => {
    const voidedId = await fillSource();
    const started = await pull(target, 'copy', { kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi/`, key: sourceKey.id, secret: sourceKey.secret });
    expect(started.statusCode, started.body).toBe(201);
    expect(started.body).not.toContain(sourceKey.secret);
    const job = await waitForEnd(target, 'copy', (started.json() as Job).id);
    expect(job.state, job.error ?? '').toBe('finished');
    // Eight listed, and the voided one fetched by id.
    expect(job.counts).toEqual({ read: 9, imported: 9, alreadyPresent: 0, voided: 1, invalid: 0, conflicts: 0 });

    const targetKey = await target.createKey('copy');
    const expected = await listAll(source, sourceKey, 'origin');
    const imported = await listAll(target, targetKey, 'copy');
    expect(imported.map((s) => s.id)).toEqual(expected.map((s) => s.id));
    expect(kept(imported)).toEqual(kept(expected));

    const voided = await target.xapi(targetKey, { method: 'GET', url: `/copy/xapi/statements?voidedStatementId=${voidedId}` });
    expect(voided.statusCode).toBe(200);
    const sourceVoided = await source.xapi(sourceKey, { method: 'GET', url: `/origin/xapi/statements?voidedStatementId=${voidedId}` });
    expect(kept([voided.json()])).toEqual(kept([sourceVoided.json()]));
    expect((await target.xapi(targetKey, { method: 'GET', url: `/copy/xapi/statements?statementId=${voidedId}` })).statusCode).toBe(404);

    // The list shows it, without the secret.
    const list = await target.admin({ method: 'GET', url: '/admin/api/stores/copy/imports' });
    expect(list.statusCode).toBe(200);
    expect((list.json() as { imports: Job[] }).imports.map((j) => j.id)).toEqual([job.id]);
    expect(list.body).not.toContain(sourceKey.secret);
  });

  it('imports nothing twice: a second run finds every statement already present', async () => {
    await fillSource();
    const input = { kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi`, key: sourceKey.id, secret: sourceKey.secret };
    await waitForEnd(target, 'copy', ((await pull(target, 'copy', input)).json() as Job).id);
    const again = await waitForEnd(target, 'copy', ((await pull(target, 'copy', input)).json() as Job).id);
    expect(again.counts).toEqual({ read: 8, imported: 0, alreadyPresent: 8, voided: 0, invalid: 0, conflicts: 0 });
    const targetKey = await target.createKey('copy');
    expect(await listAll(target, targetKey, 'copy')).toHaveLength(8);
  });

  it('takes only statements stored after `since`', async () => {
    await fillSource();
    const all = await listAll(source, sourceKey, 'origin');
    const since = all[4]!.stored as string;
    const job = await waitForEnd(target, 'copy', ((await pull(target, 'copy', { kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi/`, key: sourceKey.id, secret: sourceKey.secret, since })).json() as Job).id);
    expect(job.state).toBe('finished');
    const targetKey = await target.createKey('copy');
    expect((await listAll(target, targetKey, 'copy')).map((s) => s.id)).toEqual(all.filter((s) => (s.stored as string) > since).map((s) => s.id));
  });

  it('fails clearly when the source refuses the key and secret, and keeps no secret', async () => {
    const started = await pull(target, 'copy', { kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi/`, key: sourceKey.id, secret: 'wrong-secret' });
    expect(started.statusCode).toBe(201);
    const job = await waitForEnd(target, 'copy', (started.json() as Job).id);
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/401: the key and secret were refused/);
    expect(job).not.toHaveProperty('secret');
    expect(JSON.stringify(await target.storage.findImportJob((job as unknown as { storeId: string }).storeId, job.id))).not.toContain('wrong-secret');
  });

  it('refuses a request without what a pull needs, naming the field', async () => {
    const missing = await pull(target, 'copy', { kind: 'lrs', key: 'k', secret: 's' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: { field: 'endpoint' } });
    const badSince = await pull(target, 'copy', { kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi/`, key: 'k', secret: 's', since: 'yesterday' });
    expect(badSince.json()).toMatchObject({ error: { status: 400, field: 'since' } });
    const ftp = await pull(target, 'copy', { kind: 'lrs', endpoint: 'ftp://example.com/xapi', key: 'k', secret: 's' });
    expect(ftp.json()).toMatchObject({ error: { status: 400, field: 'endpoint' } });
    const credentialsInUrl = await pull(target, 'copy', { kind: 'lrs', endpoint: `http://k:s@127.0.0.1:1/xapi/`, key: 'k', secret: 's' });
    expect(credentialsInUrl.json()).toMatchObject({ error: { status: 400, field: 'endpoint', message: expect.stringMatching(/own fields/) } });
    const noStore = await pull(target, 'nowhere', { kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi/`, key: 'k', secret: 's' });
    expect(noStore.statusCode).toBe(404);
    const text = await target.admin({ method: 'POST', url: '/admin/api/stores/copy/imports', headers: { 'content-type': 'text/plain' }, payload: 'hello' });
    expect(text.statusCode).toBe(415);
    const unknown = await target.admin({ method: 'GET', url: `/admin/api/stores/copy/imports/${randomUUID()}` });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('an NDJSON file', () => {
  function upload(slug: string, body: string) {
    return target.admin({ method: 'POST', url: `/admin/api/stores/${slug}/imports?fileName=export.ndjson`, headers: { 'content-type': 'application/x-ndjson' }, payload: body });
  }

  it('gives back the same statements: an export re-imported into a new Store', async () => {
    const voidedId = await fillSource();
    const listed = await listAll(source, sourceKey, 'origin');
    const voided = (await source.xapi(sourceKey, { method: 'GET', url: `/origin/xapi/statements?voidedStatementId=${voidedId}` })).json() as Record<string, unknown>;
    // An export holds every statement as stored, voided ones too, in stored order.
    const exported = [...listed, voided].sort((a, b) => (a.stored as string).localeCompare(b.stored as string));
    const response = await upload('copy', exported.map((s) => JSON.stringify(s)).join('\n') + '\n');
    expect(response.statusCode, response.body).toBe(201);
    const job = response.json() as Job;
    expect(job.state).toBe('finished');
    expect(job.counts).toEqual({ read: 9, imported: 9, alreadyPresent: 0, voided: 1, invalid: 0, conflicts: 0 });
    const targetKey = await target.createKey('copy');
    expect(kept(await listAll(target, targetKey, 'copy'))).toEqual(kept(listed));
    expect((await target.xapi(targetKey, { method: 'GET', url: `/copy/xapi/statements?voidedStatementId=${voidedId}` })).statusCode).toBe(200);
  });

  it('counts bad lines and conflicts with their line numbers, and imports the rest', async () => {
    const good = { ...statement({ id: randomUUID() }), stored: '2024-05-01T00:00:00.000Z', timestamp: '2024-05-01T00:00:00.000Z' };
    const first = await upload('copy', JSON.stringify(good) + '\n');
    expect((first.json() as Job).counts.imported).toBe(1);
    const other = { ...statement({ id: randomUUID() }), stored: '2024-05-02T00:00:00.000Z' };
    const lines = [
      JSON.stringify(other), // 1: imported
      '{not json', // 2
      '', // 3: blank, skipped
      JSON.stringify(statement({ id: randomUUID(), verb: { id: 'not an iri' } })), // 4: invalid
      '[1, 2]', // 5: not a statement
      JSON.stringify({ ...good, verb: { id: 'http://example.com/verbs/other' } }), // 6: same id, other content
      JSON.stringify(good), // 7: already present
      JSON.stringify(statement()), // 8: no id
    ];
    const response = await upload('copy', lines.join('\r\n'));
    expect(response.statusCode, response.body).toBe(201);
    const job = response.json() as Job;
    expect(job.state).toBe('finished');
    expect(job.counts).toEqual({ read: 7, imported: 1, alreadyPresent: 1, voided: 0, invalid: 4, conflicts: 1 });
    expect(job.problems.map((p) => [p.kind, p.line])).toEqual([
      ['invalid', 2],
      ['invalid', 4],
      ['invalid', 5],
      ['invalid', 8],
      ['conflict', 6],
    ]);
    expect(job.problems[1]!.message).toMatch(/verb/);
  });
});
