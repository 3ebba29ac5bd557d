/**
 * How a pull treats sources that are not Lore (admin/import-source.ts, import-jobs.ts): a source
 * served here on a real socket behaves as other LRSs do — one that takes only version 2.0.0, one
 * that fails for a while, one whose `more` links are full URLs or stop working, one that is not
 * there. The pull adapts, retries, resumes or fails with a message that says what happened.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportJobs } from '../../src-server/admin/import-jobs';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { ImportJobRecord, Storage, StoreRecord } from '../../src-server/storage/storage';
import { makeStore } from '../storage/rows';

const AUTHORITY = { objectType: 'Agent', name: 'Elsewhere', account: { homePage: 'https://elsewhere.example.com', name: 'k1' } };

/** Five statements stored a second apart, as another LRS returns them. */
const STATEMENTS = Array.from({ length: 5 }, (_, i) => ({
  id: randomUUID(),
  actor: { mbox: `mailto:learner${i}@example.com` },
  verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
  object: { id: `http://example.com/activities/${i}` },
  timestamp: `2023-03-0${i + 1}T08:00:00.000Z`,
  stored: `2023-03-0${i + 1}T08:00:01.000Z`,
  authority: AUTHORITY,
  version: '1.0.0',
}));

interface Behaviour {
  /** Answer 400 to any version but this one. */
  onlyVersion?: string;
  /** Answer 503 to this many requests first. */
  failFirst?: number;
  /** `more` as a full URL instead of a path. */
  fullMoreUrl?: boolean;
  /** Answer 404 to a `more` link in the first request (a link that expired meanwhile). */
  refuseFirstMore?: boolean;
}

let server: Server;
let origin: string;
let storage: Storage;
let store: StoreRecord;
let dataDir: string;
let jobs: ImportJobs;
const requests: string[] = [];
let behaviour: Behaviour = {};

function serve(req: IncomingMessage, res: ServerResponse): void {
  requests.push(`${req.headers['x-experience-api-version']} ${req.url}`);
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.headers.authorization !== `Basic ${Buffer.from('k1:s1').toString('base64')}`) return send(401, { message: 'bad credentials' });
  if (behaviour.onlyVersion && req.headers['x-experience-api-version'] !== behaviour.onlyVersion) return send(400, { message: `X-Experience-API-Version must be ${behaviour.onlyVersion}` });
  if (behaviour.failFirst && requests.length <= behaviour.failFirst) return send(503, { message: 'busy' });
  const url = new URL(req.url!, origin);
  const page = Number(url.searchParams.get('page') ?? '0');
  if (url.searchParams.has('page') && behaviour.refuseFirstMore && requests.length === 1) return send(404, { message: 'unknown more token' });
  const since = url.searchParams.get('since');
  const listed = STATEMENTS.filter((s) => since === null || s.stored > since);
  const slice = listed.slice(page * 2, page * 2 + 2);
  const more = page * 2 + 2 < listed.length ? `/lrs/xapi/statements?page=${page + 1}${since ? `&since=${encodeURIComponent(since)}` : ''}` : '';
  send(200, { statements: slice, more: more && behaviour.fullMoreUrl ? `${origin}${more}` : more });
}

beforeEach(async () => {
  requests.length = 0;
  behaviour = {};
  server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dataDir = mkdtempSync(join(tmpdir(), 'lore-import-source-'));
  storage = await openSqljsStorage({ dataDir });
  store = makeStore();
  await storage.insertStore(store);
  jobs = new ImportJobs({ storage, events: { announceStatements: () => {}, announceRejections: () => {} }, publicUrl: () => 'http://127.0.0.1:8411', retryDelaysMs: [20, 20], pollMs: 50 });
  await jobs.start();
});

afterEach(async () => {
  await jobs.stop();
  await storage.close();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

async function ended(id: string): Promise<ImportJobRecord> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const job = (await storage.findImportJob(store.id, id))!;
    if (job.state === 'finished' || job.state === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`not ended: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function pull(endpoint = `${origin}/lrs/xapi`): Promise<ImportJobRecord> {
  return ended((await jobs.startPull(store, { endpoint, key: 'k1', secret: 's1' })).id);
}

async function storedIds(): Promise<string[]> {
  const page = await storage.queryStatements(store.id, { ascending: true, limit: 100 });
  return page.statements.map((s) => s.statementId);
}

describe('a pull from a source that is not Lore', () => {
  it('keeps each statement as the source had it, across `more` pages', async () => {
    const job = await pull();
    expect(job.counts).toMatchObject({ read: 5, imported: 5, invalid: 0 });
    expect(job.secret).toBeNull();
    expect(await storedIds()).toEqual(STATEMENTS.map((s) => s.id));
    const stored = (await storage.findStatement(store.id, STATEMENTS[2]!.id))!;
    expect(stored.statement).toMatchObject({ stored: STATEMENTS[2]!.stored, timestamp: STATEMENTS[2]!.timestamp, authority: AUTHORITY, version: '1.0.0' });
    expect(stored.stored).toBe(STATEMENTS[2]!.stored);
    expect(requests[0]).toMatch(/^1\.0\.3 \/lrs\/xapi\/statements\?ascending=true$/);
  });

  it('asks again with version 2.0.0 when the source takes only that one', async () => {
    behaviour = { onlyVersion: '2.0.0' };
    const job = await pull();
    expect(job.state, job.error ?? '').toBe('finished');
    expect(requests.map((r) => r.split(' ')[0])).toEqual(['1.0.3', '2.0.0', '2.0.0', '2.0.0']);
  });

  it('follows `more` given as a full URL', async () => {
    behaviour = { fullMoreUrl: true };
    expect((await pull()).counts.imported).toBe(5);
  });

  it('tries again when the source is busy, and goes on', async () => {
    behaviour = { failFirst: 2 };
    const job = await pull();
    expect(job.state, job.error ?? '').toBe('finished');
    expect(job.counts.imported).toBe(5);
  });

  it('fails, saying so, when the source stays busy', async () => {
    behaviour = { failFirst: 100 };
    const job = await pull();
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/503 \(busy\)/);
  });

  it('goes on from the last statement reached when the source no longer takes its `more` link', async () => {
    // A job as a pull leaves it when it stops after its second statement, its `more` link saved
    // (the first statement is not in the Store: what is imported again comes from `since`).
    const paused = await pull();
    await storage.emptyStore(store.id);
    requests.length = 0;
    behaviour = { refuseFirstMore: true };
    await storage.putImportJob({ ...paused, state: 'running', secret: 's1', more: '/lrs/xapi/statements?page=1', reached: { stored: STATEMENTS[1]!.stored, statementId: STATEMENTS[1]!.id } });
    const job = await ended(paused.id); // the poll finds it and continues
    expect(job.state, job.error ?? '').toBe('finished');
    expect(requests[0]).toMatch(/page=1/);
    // From one millisecond before the second statement: it comes again, then the rest.
    expect(requests[1]).toContain(`since=${encodeURIComponent('2023-03-02T08:00:00.999Z')}`);
    expect(await storedIds()).toEqual(STATEMENTS.slice(1).map((s) => s.id));
  });

  it('fails clearly when the source refuses the credentials or is not there', async () => {
    const refused = await ended((await jobs.startPull(store, { endpoint: `${origin}/lrs/xapi`, key: 'k1', secret: 'nope' })).id);
    expect(refused.error).toBe('The source answered 401: the key and secret were refused.');
    await new Promise((resolve) => server.close(resolve));
    server = createServer(serve); // closed again after the test
    const away = await pull();
    expect(away.state).toBe('failed');
    expect(away.error).toMatch(/could not be reached .*connection was refused/);
  });

  it('leaves a file being read alone: a slow upload is not taken for one a stop cut off', async () => {
    // The search for unfinished jobs runs every 50 ms here; the file takes several times that.
    async function* slowFile(): AsyncGenerator<string> {
      for (const statement of STATEMENTS) {
        yield `${JSON.stringify(statement)}\n`;
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    }
    const reading = jobs.importNdjson(store, slowFile(), 'slow.ndjson');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [during] = await storage.listImportJobs({ storeId: store.id });
    expect(during).toMatchObject({ state: 'running', error: null });
    const job = await reading;
    expect(job).toMatchObject({ state: 'finished', error: null, counts: { imported: 5 } });
  });
});
