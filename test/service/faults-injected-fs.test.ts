/**
 * Storage faults through the whole HTTP stack, on any machine: the storage runs over an injected
 * file layer that fails like a full disk or an unwritable directory (faults-disk-full.test.ts does
 * the same with a real full file system where mounting is allowed), and over a small capacity
 * limit for the in-memory database.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import { buildServer } from '../../src-server/http/build-server';
import { openSqljsStorage, type SqljsStorage, type SqljsStorageOptions } from '../../src-server/storage/sqljs/sqljs-storage';
import { instrumentedFs, ioError } from '../storage/sqljs-helpers';

const ADMIN = { authorization: 'Bearer faults-admin-token-0123456789' };

interface Harness {
  app: FastifyInstance;
  storage: SqljsStorage;
  basic: string;
  logs: string[];
  post(id: string, extra?: Record<string, unknown>): Promise<{ status: number; body: { error?: { code: string; message: string } } }>;
  get(id: string): Promise<number>;
}

const dirs: string[] = [];
const open: Harness[] = [];

afterEach(async () => {
  for (const h of open.splice(0)) {
    await h.app.close();
    await h.storage.close().catch(() => {});
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function harness(options: Partial<SqljsStorageOptions> = {}, dataDir?: string, basic?: string): Promise<Harness> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'lore-faults-'));
  if (!dataDir) dirs.push(dir);
  const logs: string[] = [];
  const storage = await openSqljsStorage({ dataDir: dir, log: (msg) => logs.push(msg), ...options });
  const app = buildServer({ storage, adminToken: resolveAdminToken(dir, ADMIN.authorization.slice(7)).check, publicUrl: () => 'http://127.0.0.1:8411' });
  await app.ready();
  if (!basic) {
    expect((await app.inject({ method: 'POST', url: '/admin/api/stores', headers: ADMIN, payload: { slug: 'faults', name: 'Faults' } })).statusCode).toBe(201);
    const key = await app.inject({ method: 'POST', url: '/admin/api/stores/faults/keys', headers: ADMIN, payload: { name: 'k' } });
    basic = (key.json() as { basic: string }).basic;
  }
  const headers = { authorization: `Basic ${basic}`, 'x-experience-api-version': '1.0.3' };
  const h: Harness = {
    app,
    storage,
    basic,
    logs,
    async post(id, extra = {}) {
      const response = await app.inject({
        method: 'POST',
        url: '/faults/xAPI/statements',
        headers,
        payload: { id, actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/a' }, ...extra },
      });
      return { status: response.statusCode, body: response.json() };
    },
    async get(id) {
      return (await app.inject({ method: 'GET', url: `/faults/xAPI/statements?statementId=${id}`, headers })).statusCode;
    },
  };
  open.push(h);
  return h;
}

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Retries a write until it is taken (the storage probes the disk again 1 s after a failure). */
async function postUntilTaken(h: Harness, refused: string[]): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const id = randomUUID();
    const { status } = await h.post(id);
    if (status === 200) return id;
    expect(status).toBe(503);
    refused.push(id);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('writes did not resume');
}

describe('a full disk or an unwritable data directory, through HTTP', () => {
  it('answers 503 naming the full disk, keeps reads, resumes writes by itself, and keeps only what it acknowledged', async () => {
    const { fs, control } = instrumentedFs();
    const h = await harness({ fs });
    const acknowledged: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = randomUUID();
      expect((await h.post(id)).status).toBe(200);
      acknowledged.push(id);
    }

    control.failure = ioError('ENOSPC');
    const refused = [randomUUID()];
    const refusal = await h.post(refused[0]!);
    expect(refusal.status).toBe(503);
    expect(refusal.body.error?.code).toBe('storage_unavailable');
    expect(refusal.body.error?.message).toMatch(/disk .*is full.*nothing was stored/i);
    // Reads keep working; once the storage has reloaded what is durable, the refused statement is nowhere.
    expect(await h.get(acknowledged[0]!)).toBe(200);
    await waitFor(() => h.logs.some((line) => line.startsWith('reloaded the durable state')));
    expect(await h.get(refused[0]!)).toBe(404);
    // Refused again while the disk stays full.
    const again = randomUUID();
    expect((await h.post(again)).status).toBe(503);
    refused.push(again);

    control.failure = null;
    acknowledged.push(await postUntilTaken(h, refused));
    expect(h.logs.join('\n')).toMatch(/the disk takes writes again/);

    await h.app.close();
    await h.storage.close();
    open.splice(0);
    const reopened = await harness({}, h.storage.dataDir, h.basic);
    for (const id of acknowledged) expect(await reopened.get(id), `acknowledged ${id}`).toBe(200);
    for (const id of refused) expect(await reopened.get(id), `refused ${id}`).toBe(404);
  });

  it('names an unwritable data directory in its 503', async () => {
    const { fs, control } = instrumentedFs();
    const h = await harness({ fs });
    control.failure = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    const refusal = await h.post(randomUUID());
    expect(refusal.status).toBe(503);
    expect(refusal.body.error?.message).toMatch(/data directory cannot be written/i);
    control.failure = null;
    await postUntilTaken(h, []);
  });
});

describe('a full database (capacity of the in-memory database)', () => {
  it('reports its capacity in the status, refuses data with 507 at 95%, keeps reads, and takes data again once some is deleted', async () => {
    // The empty schema takes ~0.2 MB: a 1 MiB limit fills after a few hundred KB of statements.
    const h = await harness({ capacityLimitBytes: 1024 * 1024 });
    const status = async () =>
      (await h.app.inject({ method: 'GET', url: '/admin/api/status', headers: ADMIN })).json() as {
        capacity: { usedBytes: number; limitBytes: number; state: string };
      };
    expect((await status()).capacity).toMatchObject({ limitBytes: 1024 * 1024, state: 'ok' });

    // Random text, per statement: the compact form of statements (statement-codec.ts) cannot shrink it.
    const filler = () => ({ result: { response: randomBytes(6_000).toString('base64') } });
    const stored: string[] = [];
    let refusal: Awaited<ReturnType<Harness['post']>> | undefined;
    for (let i = 0; i < 400 && !refusal; i++) {
      const id = randomUUID();
      const response = await h.post(id, filler());
      if (response.status === 200) stored.push(id);
      else refusal = response;
    }
    expect(refusal?.status).toBe(507);
    expect(refusal?.body.error?.code).toBe('storage_full');
    expect(refusal?.body.error?.message).toMatch(/PostgreSQL/);
    expect((await status()).capacity.state).toBe('full');
    expect(h.logs.join('\n')).toMatch(/database capacity warning/);
    expect(h.logs.join('\n')).toMatch(/database full/);
    // Reads keep working, and maintenance writes too: emptying the Store makes room.
    expect(await h.get(stored[0]!)).toBe(200);
    const emptied = await h.app.inject({ method: 'POST', url: '/admin/api/stores/faults/empty', headers: ADMIN });
    expect(emptied.statusCode).toBe(204);
    expect((await h.post(randomUUID(), filler())).status).toBe(200);
    expect((await status()).capacity.state).toBe('ok');
  });
});
