/**
 * Forwarding (docs/forwarding.md) through the admin API, delivered by the real worker over real
 * sockets to a test receiver: signatures, order, the receiver down and back, refusals and dead
 * letters with redelivery, the filter, pause, and the cursor across a restart. Runs on sql.js and
 * (vitest.config.ts) on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import type { ForwarderView } from '../../src-server/admin/contract';
import { ForwardingWorker, type ForwardingTiming } from '../../src-server/admin/forwarding-worker';
import { buildServer } from '../../src-server/http/build-server';
import type { Storage } from '../../src-server/storage/storage';
import { firstArrivals, TestReceiver, waitFor } from '../forwarding/receiver';
import { ADMIN_TOKEN, checkAgainstContract, openTestStorage, PUBLIC_URL, type TestStorage } from './test-app';

const SECRET = 'webhook-secret-0123456789';
const FAST: Partial<ForwardingTiming> = { retryBaseMs: 20, retryMaxMs: 100, giveUpMs: 60_000, idleMs: 200, leaseMs: 5_000, requestTimeoutMs: 2_000 };
const VERB = 'http://adlnet.gov/expapi/verbs/completed';

interface Lore {
  app: FastifyInstance;
  storage: Storage;
  worker: ForwardingWorker;
}

let dataDir: string;
let opened: TestStorage;
let lore: Lore;
let basic: string;
let receiver: TestReceiver;

async function startLore(storage: Storage, timing: Partial<ForwardingTiming> = FAST): Promise<Lore> {
  const worker = new ForwardingWorker({ storage, timing });
  const app = buildServer({ storage, adminToken: resolveAdminToken(dataDir, ADMIN_TOKEN).check, publicUrl: () => PUBLIC_URL, forwarding: worker });
  await app.ready();
  worker.start();
  return { app, storage, worker };
}

async function stopLore(running: Lore): Promise<void> {
  await running.worker.stop();
  await running.app.close();
}

async function admin(options: InjectOptions) {
  const response = await lore.app.inject({ ...options, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  checkAgainstContract(options.method ?? 'GET', String(options.url), response);
  return response;
}

async function createForwarder(body: Record<string, unknown>): Promise<ForwarderView> {
  const response = await admin({ method: 'POST', url: '/admin/api/stores/demo/forwarders', payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as ForwarderView;
}

async function forwarder(id: string): Promise<ForwarderView> {
  return (await admin({ url: `/admin/api/stores/demo/forwarders/${id}` })).json() as ForwarderView;
}

/** Posts `count` statements one request each (so that they are separate writes); resolves with their ids in order. */
async function send(count: number, verb = VERB): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    const response = await lore.app.inject({
      method: 'POST',
      url: '/demo/xAPI/statements',
      headers: { authorization: `Basic ${basic}`, 'x-experience-api-version': '1.0.3' },
      payload: { id, actor: { mbox: 'mailto:ada@example.com' }, verb: { id: verb }, object: { id: `http://example.com/a/${i}` } },
    });
    expect(response.statusCode, response.body).toBe(200);
    ids.push(id);
  }
  return ids;
}

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'lore-forwarding-'));
  opened = await openTestStorage(dataDir);
  lore = await startLore(opened.storage);
  await admin({ method: 'POST', url: '/admin/api/stores', payload: { slug: 'demo', name: 'Demo' } });
  const key = await admin({ method: 'POST', url: '/admin/api/stores/demo/keys', payload: { name: 'k' } });
  basic = (key.json() as { basic: string }).basic;
  receiver = new TestReceiver(SECRET);
  await receiver.up();
});

afterEach(async () => {
  await stopLore(lore);
  await receiver.down();
  await opened.release();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('forwarding to a webhook', () => {
  it('sends signed batches in order and shows how far it delivered; the secret is never shown', async () => {
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    expect(JSON.stringify(created)).not.toContain(SECRET);
    const ids = await send(30);
    await waitFor(() => receiver.ids.length >= 30, 'the statements to arrive');
    expect(receiver.ids).toEqual(ids);
    expect(receiver.batches.every((batch) => batch.signed)).toBe(true);
    expect(receiver.batches[0]!.headers['content-type']).toBe('application/json');
    // The statements as stored: what GET answers.
    const stored = JSON.parse(receiver.batches[0]!.body) as { statements: Array<Record<string, unknown>> };
    expect(stored.statements[0]).toMatchObject({ id: ids[0], stored: expect.any(String), authority: expect.any(Object) });
    await waitFor(async () => (await forwarder(created.id)).pending === 0, 'the status to settle');
    const status = await forwarder(created.id);
    const last = JSON.parse(receiver.batches.at(-1)!.body) as { statements: Array<{ stored: string }> };
    expect(status.deliveredThrough.stored).toBe(last.statements.at(-1)!.stored);
    expect(status).toMatchObject({ pending: 0, deadLetters: 0, lastError: null });
    const list = await admin({ url: '/admin/api/stores/demo/forwarders' });
    expect(JSON.stringify(list.json())).not.toContain(SECRET);
  });

  it('a receiver that signs with another secret sees the signature fail', async () => {
    const other = new TestReceiver('another-secret-0123456789');
    await other.up();
    try {
      await createForwarder({ kind: 'webhook', url: other.url, secret: SECRET });
      await send(1);
      await waitFor(() => other.batches.length === 1, 'the batch');
      expect(other.batches[0]!.signed).toBe(false);
    } finally {
      await other.down();
    }
  });

  it('keeps what arrives while the receiver is down, retries with backoff, and delivers all in order once it is back', async () => {
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    await receiver.down();
    const ids = await send(12);
    await waitFor(async () => (await forwarder(created.id)).lastError !== null, 'a failure to show');
    const failing = await forwarder(created.id);
    expect(failing.lastError).toMatchObject({ status: null, message: expect.stringContaining('could not reach') });
    expect(failing.failingSince).not.toBeNull();
    expect(failing.nextAttemptAt).not.toBeNull();
    expect(failing.pending).toBe(12);
    await receiver.up();
    await waitFor(() => receiver.ids.length >= 12, 'the statements after the receiver came back');
    expect(receiver.ids).toEqual(ids);
    await waitFor(async () => (await forwarder(created.id)).failingSince === null, 'the failure to clear');
  });

  it('sends only what the filter lets through, and passes the rest', async () => {
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET, filter: { verb: 'http://example.com/verbs/wanted' } });
    await send(3);
    const wanted = await send(2, 'http://example.com/verbs/wanted');
    await send(3);
    await waitFor(async () => (await forwarder(created.id)).pending === 0, 'the cursor to pass everything');
    expect(receiver.ids).toEqual(wanted);
  });

  it('a batch refused is split; the refused statement becomes a dead letter, the others go on; redeliver sends it', async () => {
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET, from: 'beginning' });
    await lore.worker.stop(); // so that the five statements go in one batch
    const ids = await send(5);
    const bad = ids[2]!;
    receiver.answer = (batch) => (batch.ids.includes(bad) ? 422 : 200);
    lore.worker = new ForwardingWorker({ storage: lore.storage, timing: FAST });
    lore.worker.start();
    await waitFor(async () => (await forwarder(created.id)).deadLetters === 1, 'a dead letter');
    await waitFor(() => receiver.ids.length === 4, 'the four others');
    expect(receiver.ids).toEqual(ids.filter((id) => id !== bad));
    const letters = await admin({ url: `/admin/api/stores/demo/forwarders/${created.id}/dead-letters` });
    const [letter] = (letters.json() as { deadLetters: Array<{ id: number; statementIds: string[]; error: { status: number } }> }).deadLetters;
    expect(letter).toMatchObject({ statementIds: [bad], error: { status: 422 } });

    receiver.answer = 200;
    const redelivered = await admin({ method: 'POST', url: `/admin/api/stores/demo/forwarders/${created.id}/redeliver`, payload: {} });
    expect(redelivered.json()).toEqual({ queued: 1 });
    await waitFor(() => receiver.ids.includes(bad), 'the dead letter redelivered');
    await waitFor(async () => (await forwarder(created.id)).deadLetters === 0, 'the dead letter gone');
  });

  it('gives a batch up after the retry period, goes on with the next, and the new batch is delivered', async () => {
    await stopLore(lore);
    lore = await startLore(lore.storage, { ...FAST, giveUpMs: 300 });
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    receiver.answer = 503;
    const first = await send(2);
    await waitFor(async () => (await forwarder(created.id)).deadLetters === 1, 'the batch given up on');
    receiver.answer = 200;
    const next = await send(2);
    await waitFor(() => receiver.ids.length === 2, 'the next statements');
    expect(receiver.ids).toEqual(next);
    const letters = (await admin({ url: `/admin/api/stores/demo/forwarders/${created.id}/dead-letters` })).json() as { deadLetters: Array<{ statementIds: string[] }> };
    expect(letters.deadLetters.flatMap((letter) => letter.statementIds)).toEqual(first);
  });

  it('is woken by every statement recorded, the console’s test statement too: no timer needed', async () => {
    await stopLore(lore);
    lore = await startLore(lore.storage, { ...FAST, idleMs: 60_000 });
    await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    const [id] = await send(1);
    await waitFor(() => receiver.ids.length === 1, 'the statement', 3_000);
    const test = await admin({ method: 'POST', url: '/admin/api/stores/demo/test-statement' });
    const { statementId } = test.json() as { statementId: string };
    await waitFor(() => receiver.ids.length === 2, 'the test statement', 3_000);
    expect(receiver.ids).toEqual([id, statementId]);
  });

  it('reads a Store’s forwarders once for many writes, and again after an admin adds or deletes one', async () => {
    await stopLore(lore);
    const reads: Array<string | undefined> = [];
    const counted = new Proxy(lore.storage, {
      get(target, name, receiver) {
        if (name === 'listForwarders') {
          return (storeId?: string) => {
            reads.push(storeId);
            return target.listForwarders(storeId);
          };
        }
        const value: unknown = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    lore = await startLore(counted, { ...FAST, idleMs: 60_000 });
    const storeReads = () => reads.filter((storeId) => storeId !== undefined).length;
    // Writes a statement at a time, then lets every wake they caused (the change feed's too) end.
    const write = async (count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push(...(await send(1)));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      return ids;
    };
    await write(5);
    expect(storeReads()).toBe(1);

    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    const sent = await write(2);
    await waitFor(() => receiver.ids.length === 2, 'the statements written after the forwarder was added', 3_000);
    expect(receiver.ids).toEqual(sent);
    expect(storeReads()).toBe(2);

    expect((await admin({ method: 'DELETE', url: `/admin/api/stores/demo/forwarders/${created.id}` })).statusCode).toBe(204);
    await write(3);
    expect(storeReads()).toBe(3);
    expect(receiver.ids).toEqual(sent);
  });

  it('pauses, resumes and deletes', async () => {
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    const paused = await admin({ method: 'PATCH', url: `/admin/api/stores/demo/forwarders/${created.id}`, payload: { paused: true } });
    expect(paused.json()).toMatchObject({ paused: true });
    const ids = await send(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.ids).toEqual([]);
    expect((await forwarder(created.id)).pending).toBe(3);
    await admin({ method: 'PATCH', url: `/admin/api/stores/demo/forwarders/${created.id}`, payload: { paused: false } });
    await waitFor(() => receiver.ids.length === 3, 'delivery after resume');
    expect(receiver.ids).toEqual(ids);
    expect((await admin({ method: 'DELETE', url: `/admin/api/stores/demo/forwarders/${created.id}` })).statusCode).toBe(204);
    expect((await admin({ url: `/admin/api/stores/demo/forwarders/${created.id}` })).statusCode).toBe(404);
    await send(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.ids).toHaveLength(3);
  });

  it('keeps its cursor across a restart: nothing is sent twice that was acknowledged', async () => {
    const created = await createForwarder({ kind: 'webhook', url: receiver.url, secret: SECRET });
    const before = await send(4);
    await waitFor(() => receiver.ids.length === 4, 'the first statements');
    await waitFor(async () => (await forwarder(created.id)).pending === 0, 'the cursor');
    await stopLore(lore);
    await lore.storage.close();
    lore = await startLore(await opened.reopen());
    const after = await send(2);
    await waitFor(() => receiver.ids.length === 6, 'the statements after the restart');
    expect(receiver.ids).toEqual([...before, ...after]);
    expect(firstArrivals(receiver.ids)).toEqual(receiver.ids);
  });
});

describe('the admin API refuses bad forwarders, naming the field', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no kind', { url: 'http://example.com' }, 'kind'],
    ['not http', { kind: 'webhook', url: 'ftp://example.com/x', secret: SECRET }, 'url'],
    ['credentials in the URL', { kind: 'webhook', url: 'http://u:p@example.com/x', secret: SECRET }, 'url'],
    ['a webhook without secret', { kind: 'webhook', url: 'http://example.com/x' }, 'secret'],
    ['a short secret', { kind: 'webhook', url: 'http://example.com/x', secret: 'short' }, 'secret'],
    ['an LRS without user name', { kind: 'xapi', url: 'http://example.com/xAPI', password: 'p' }, 'username'],
    ['an LRS with a secret', { kind: 'xapi', url: 'http://example.com/xAPI', username: 'u', password: 'p', secret: SECRET }, 'secret'],
    ['an unknown filter', { kind: 'webhook', url: 'http://example.com/x', secret: SECRET, filter: { colour: 'red' } }, 'filter'],
    ['a bad status', { kind: 'webhook', url: 'http://example.com/x', secret: SECRET, filter: { status: 'rejected' } }, 'filter.status'],
  ];
  it('no kind, not http, credentials in the URL, missing or misplaced credentials, a bad filter', async () => {
    for (const [what, body, field] of cases) {
      const response = await admin({ method: 'POST', url: '/admin/api/stores/demo/forwarders', payload: body });
      expect(response.statusCode, `${what}: ${response.body}`).toBe(400);
      expect((response.json() as { error: { field?: string } }).error.field, what).toBe(field);
    }
    expect((await admin({ url: '/admin/api/stores/demo/forwarders' })).json()).toEqual({ forwarders: [] });
  });

  it('answers 404 for another Store and an unknown forwarder', async () => {
    expect((await admin({ url: '/admin/api/stores/nowhere/forwarders' })).statusCode).toBe(404);
    expect((await admin({ url: '/admin/api/stores/demo/forwarders/nope' })).statusCode).toBe(404);
    expect((await admin({ method: 'POST', url: '/admin/api/stores/demo/forwarders/nope/redeliver', payload: {} })).statusCode).toBe(404);
  });
});
