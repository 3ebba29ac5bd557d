/**
 * /admin/api/events over a real socket: the console reads it with fetch streaming. The console's
 * `change` news per Store (coalesced, resumable from Last-Event-ID), and the per-statement events
 * tools ask for with ?detail=statements.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import { liveEventSchema, storeChangeSchema, type LiveEventView } from '../../src-server/admin/contract';
import { LiveEventBus } from '../../src-server/admin/live-events';
import { buildServer } from '../../src-server/http/build-server';
import { errorHandlingPlugin } from '../../src-server/http/plugins/error-handler';
import eventRoutes from '../../src-server/http/routes/admin/events';
import type { Storage } from '../../src-server/storage/storage';
import { openTestStorage, statement } from './test-app';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

interface Running {
  app: FastifyInstance;
  storage: Storage;
  events: LiveEventBus;
  base: string;
  admin(pathname: string, init?: RequestInit): Promise<Response>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: { heartbeatMs?: number; coalesceMs?: number } = {}): Promise<Running> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'lore-events-'));
  const { storage, release } = await openTestStorage(dataDir);
  const events = new LiveEventBus(storage, { coalesceMs: options.coalesceMs ?? 50 });
  let base = '';
  const app = buildServer({
    storage,
    events,
    adminToken: resolveAdminToken(dataDir, ADMIN_TOKEN).check,
    publicUrl: () => base,
    eventHeartbeatMs: options.heartbeatMs,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    await app.close();
    await release();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const admin = (pathname: string, init: RequestInit = {}) =>
    fetch(`${base}/admin/api${pathname}`, {
      ...init,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...init.headers },
    });
  return { app, storage, events, base, admin };
}

/** Reads a text/event-stream: collects events and comments as they arrive. */
function readStream(response: Response) {
  const events: Array<{ event: string; data: string; id?: string }> = [];
  const comments: string[] = [];
  let ended = false;
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const done = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          if (lines.every((line) => line.startsWith(':'))) comments.push(...lines.map((line) => line.slice(1).trim()));
          const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
          const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
          const id = lines.find((line) => line.startsWith('id: '))?.slice(4);
          if (event) events.push({ event, data, ...(id === undefined ? {} : { id }) });
        }
      }
    } catch {
      // aborted or cut by the server
    }
    ended = true;
  })();
  return {
    events,
    comments,
    statements: () => events.filter((e) => e.event === 'statement').map((e) => liveEventSchema.parse(JSON.parse(e.data))),
    changes: () => events.filter((e) => e.event === 'change').map((e) => ({ ...storeChangeSchema.parse(JSON.parse(e.data)), id: e.id })),
    get ended() {
      return ended;
    },
    done,
    cancel: () => reader.cancel().catch(() => {}),
  };
}

async function createStoreAndKey(r: Running, slug: string): Promise<{ basic: string }> {
  expect((await r.admin('/stores', { method: 'POST', body: JSON.stringify({ slug, name: slug }) })).status).toBe(201);
  const key = await r.admin(`/stores/${slug}/keys`, { method: 'POST', body: JSON.stringify({ name: 'k' }) });
  return (await key.json()) as { basic: string };
}

function sendStatements(r: Running, slug: string, key: { basic: string }, body: unknown): Promise<Response> {
  return fetch(`${r.base}/${slug}/xAPI/statements`, {
    method: 'POST',
    headers: { authorization: `Basic ${key.basic}`, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('live events', () => {
  it('streams every accepted, voided and rejected statement as it is recorded, with the seq the Explorer shows', async () => {
    const r = await start();
    const key = await createStoreAndKey(r, 'demo');
    const response = await r.admin('/events?detail=statements');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = readStream(response);
    cleanups.push(stream.cancel);
    await vi.waitFor(() => expect(stream.comments).toContain('connected'));

    const [id] = (await (await sendStatements(r, 'demo', key, statement())).json()) as string[];
    expect((await sendStatements(r, 'demo', key, { actor: { mbox: 'nobody' } })).status).toBe(400);
    const voiding = statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id } });
    expect((await sendStatements(r, 'demo', key, voiding)).status).toBe(200);

    await vi.waitFor(() => expect(stream.statements()).toHaveLength(4), { timeout: 2000 });
    const events = stream.statements();
    expect(events.map((e) => [e.status, e.statementId === id])).toEqual([
      ['accepted', true],
      ['rejected', false],
      ['accepted', false],
      ['voided', true],
    ]);
    expect(events.every((e) => e.store === 'demo')).toBe(true);
    const explorer = (await (await r.admin('/stores/demo/statements')).json()) as { records: Array<{ seq: number; status: string }> };
    expect(new Set(events.map((e) => e.seq))).toEqual(new Set(explorer.records.map((record) => record.seq)));
  });

  it("sends only the named Store's events with ?store=", async () => {
    const r = await start();
    const demo = await createStoreAndKey(r, 'demo');
    const other = await createStoreAndKey(r, 'other');
    const stream = readStream(await r.admin('/events?store=other&detail=statements'));
    cleanups.push(stream.cancel);
    await vi.waitFor(() => expect(stream.comments).toContain('connected'));
    await sendStatements(r, 'demo', demo, statement());
    await sendStatements(r, 'other', other, statement());
    await vi.waitFor(() => expect(stream.statements()).toHaveLength(1));
    // The demo statement was sent first: had it been streamed, it would be here already.
    expect(stream.statements()[0]!.store).toBe('other');
  });

  it('streams the console test statement too', async () => {
    const r = await start();
    await createStoreAndKey(r, 'demo');
    const stream = readStream(await r.admin('/events?detail=statements'));
    cleanups.push(stream.cancel);
    await vi.waitFor(() => expect(stream.comments).toContain('connected'));
    const { statementId } = (await (await r.admin('/stores/demo/test-statement', { method: 'POST', body: '{}' })).json()) as { statementId: string };
    await vi.waitFor(() => expect(stream.statements().map((e) => e.statementId)).toEqual([statementId]));
  });

  it('tells the console which Store changed, coalesced: a few messages for many statements, up to the newest seq', async () => {
    const r = await start({ coalesceMs: 200 });
    const key = await createStoreAndKey(r, 'demo');
    const stream = readStream(await r.admin('/events'));
    cleanups.push(stream.cancel);
    await vi.waitFor(() => expect(stream.comments).toContain('connected'));
    const sent = await Promise.all([
      ...Array.from({ length: 20 }, () => sendStatements(r, 'demo', key, statement())),
      sendStatements(r, 'demo', key, [statement(), statement(), statement()]),
      sendStatements(r, 'demo', key, { actor: { mbox: 'nobody' } }),
    ]);
    expect(sent.map((response) => response.status).sort()).toEqual([...Array<number>(21).fill(200), 400]);
    await vi.waitFor(() => expect(stream.changes().reduce((sum, change) => sum + (change.count ?? 0), 0)).toBe(24), { timeout: 3000 });
    const changes = stream.changes();
    expect(changes.length).toBeLessThanOrEqual(4);
    expect(changes.every((change) => change.store === 'demo')).toBe(true);
    const newest = ((await (await r.admin('/stores/demo/statements?limit=1')).json()) as { records: Array<{ seq: number }> }).records[0]!.seq;
    expect(changes.at(-1)).toMatchObject({ toSeq: newest, id: String(newest) });
    // The console's stream carries no per-statement events.
    expect(stream.statements()).toEqual([]);
  });

  it('tells a stream that comes back with Last-Event-ID of every Store that changed while it was away', async () => {
    const r = await start();
    const demo = await createStoreAndKey(r, 'demo');
    const other = await createStoreAndKey(r, 'other');
    await createStoreAndKey(r, 'quiet');
    const first = readStream(await r.admin('/events'));
    await vi.waitFor(() => expect(first.comments).toContain('connected'));
    await sendStatements(r, 'quiet', demo, statement()); // a key of another Store: refused, nothing recorded
    await sendStatements(r, 'demo', demo, statement());
    await vi.waitFor(() => expect(first.changes()).toHaveLength(1));
    const lastId = first.changes()[0]!.id!;
    await first.cancel();

    // Away: two Stores change; the third does not.
    await sendStatements(r, 'demo', demo, statement());
    await sendStatements(r, 'other', other, statement());
    const again = readStream(await r.admin('/events', { headers: { 'last-event-id': lastId } }));
    cleanups.push(again.cancel);
    await vi.waitFor(() => expect(again.changes().map((change) => change.store).sort()).toEqual(['demo', 'other']));
    expect(again.changes().every((change) => change.count === null && Number(change.id) > Number(lastId))).toBe(true);

    // A malformed id is ignored: no catch-up, the stream still works.
    const odd = readStream(await r.admin('/events?store=demo', { headers: { 'last-event-id': 'yesterday' } }));
    cleanups.push(odd.cancel);
    await vi.waitFor(() => expect(odd.comments).toContain('connected'));
    await sendStatements(r, 'demo', demo, statement());
    await vi.waitFor(() => expect(odd.changes()).toHaveLength(1));
    expect(odd.changes()[0]!.count).toBe(1);
  });

  it('counts the streams open in the service status', async () => {
    const r = await start();
    const status = async () => ((await (await r.admin('/status')).json()) as { liveStreams: number }).liveStreams;
    expect(await status()).toBe(0);
    await createStoreAndKey(r, 'demo');
    // node:http for the first: the test closes its one socket, as a closed tab does.
    const first = http.get(`${r.base}/admin/api/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, agent: false });
    await new Promise<http.IncomingMessage>((resolve) => first.on('response', resolve));
    const second = readStream(await r.admin('/events?store=demo'));
    cleanups.push(second.cancel);
    await vi.waitFor(async () => expect(await status()).toBe(2));
    first.destroy();
    await vi.waitFor(async () => expect(await status()).toBe(1));
  });

  it('sends heartbeat comments', async () => {
    const r = await start({ heartbeatMs: 20 });
    const stream = readStream(await r.admin('/events'));
    cleanups.push(stream.cancel);
    await vi.waitFor(() => expect(stream.comments.filter((c) => c === 'heartbeat').length).toBeGreaterThanOrEqual(2));
  });

  it('needs the admin token, and a known Store when one is named', async () => {
    const r = await start();
    expect((await fetch(`${r.base}/admin/api/events`)).status).toBe(401);
    const unknown = await r.admin('/events?store=nope');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('store_not_found');
  });

  it('stops listening when the client disconnects', async () => {
    const r = await start();
    // node:http rather than fetch: the test controls the one socket and closes it.
    const request = http.get(`${r.base}/admin/api/events`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, agent: false });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
    expect(response.statusCode).toBe(200);
    await vi.waitFor(() => expect(r.events.listening).toBe(true));
    request.destroy();
    await vi.waitFor(() => expect(r.events.listening).toBe(false));
  });

  it('ends open streams when the service stops, so stopping does not hang', async () => {
    const r = await start();
    const stream = readStream(await r.admin('/events'));
    await vi.waitFor(() => expect(stream.comments).toContain('connected'));
    await r.app.close();
    await stream.done;
    expect(stream.ended).toBe(true);
  });
});

describe('a client that stops reading', () => {
  it('is disconnected once its buffer passes the bound, and no longer listens', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'lore-events-'));
    const { storage, release } = await openTestStorage(dataDir);
    const app = Fastify();
    await app.register(errorHandlingPlugin, { publicUrl: () => '' });
    const bus = new LiveEventBus(storage);
    await app.register(eventRoutes, { storage, publicUrl: () => '', events: bus, maxBufferedBytes: 64 * 1024 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(async () => {
      await app.close();
      await release();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const response = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/events?detail=statements`);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await reader.read(); // ": connected", then the client reads nothing more
    const event: LiveEventView = { store: 'demo', seq: 1, status: 'accepted', statementId: 'x'.repeat(36), receivedAt: new Date().toISOString() };
    // Far more than the socket and the bound hold, all in one turn: the client cannot have read them.
    for (let i = 0; i < 50_000 && bus.listening; i++) bus.publish({ ...event, seq: i });
    expect(bus.listening).toBe(false);
    await reader.cancel().catch(() => {});
  });
});
