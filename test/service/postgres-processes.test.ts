/**
 * Two service processes on one PostgreSQL database, as behind a reverse proxy: what one writes
 * the other serves, a console connected to one sees what the other records (within 2 s), a key
 * revoked through one is refused by the other (within 1 s), and one statement id sent to both at
 * once is stored once.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSseParser } from '../../src-server/admin/sse-parser';
import { createTestDatabase } from '../postgres/test-database';
import type { TestDatabase } from '../postgres/test-database';
import { ADMIN_TOKEN, createStoreAndKey, spawnService, startService, xapiHeaders } from './service-process';
import type { ServiceProcess } from './service-process';

let database: TestDatabase;
const dirs: string[] = [];
let a: ServiceProcess;
let b: ServiceProcess;
let key: { basic: string; token: string };

function statement(id = randomUUID()): Record<string, unknown> {
  return { id, actor: { mbox: 'mailto:learner@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/course/1' } };
}

async function startOn(db: TestDatabase): Promise<ServiceProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-two-'));
  dirs.push(dir);
  return startService(dir, { LRS_DATABASE_URL: db.url, LRS_RATE_LIMIT: '0' });
}

beforeAll(async () => {
  database = await createTestDatabase();
  [a, b] = await Promise.all([startOn(database), startOn(database)]);
  key = await createStoreAndKey(a, 'shared');
}, 60_000);

afterAll(async () => {
  for (const service of [a, b]) {
    if (!service) continue;
    service.child.kill('SIGTERM');
    await service.exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
});

describe('two service processes on one PostgreSQL database', () => {
  it('serves through one process what was written through the other', async () => {
    const id = randomUUID();
    const put = await fetch(`${a.url}/shared/xAPI/statements?statementId=${id}`, { method: 'PUT', headers: xapiHeaders(key.basic), body: JSON.stringify(statement(id)) });
    expect(put.status).toBe(204);
    const read = await fetch(`${b.url}/shared/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(key.basic) });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(id);
  });

  it("shows a statement written through one process in a console connected to the other within 2 s", async () => {
    const controller = new AbortController();
    const stream = await fetch(`${b.url}/admin/api/events?store=shared&detail=statements`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const parser = createSseParser();
    // The stream is open once its first bytes (the opening comment or a keep-alive) arrive.
    await reader.read();
    const id = randomUUID();
    const sentAt = performance.now();
    const post = await fetch(`${a.url}/shared/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statement(id)) });
    expect(post.status).toBe(200);
    let seenAfterMs: number | null = null;
    const deadline = setTimeout(() => controller.abort(), 5_000);
    try {
      while (seenAfterMs === null) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const message of parser.push(value)) {
          if (message.event === 'statement' && (JSON.parse(message.data) as { statementId: string }).statementId === id) seenAfterMs = performance.now() - sentAt;
        }
      }
    } catch {
      // aborted at the deadline: seenAfterMs stays null
    } finally {
      clearTimeout(deadline);
      controller.abort();
    }
    expect(seenAfterMs).not.toBeNull();
    expect(seenAfterMs!).toBeLessThan(2_000);
  });

  it('answers a backup request with where PostgreSQL backups are made', async () => {
    const response = await fetch(`${a.url}/admin/api/backups`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(501);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/pg_dump.*docs\/deploy\.md/);
  });

  it('refuses through one process, within 1 s, a key revoked through the other', async () => {
    const created = await a.admin('/stores/shared/keys', { method: 'POST', body: JSON.stringify({ name: 'to revoke' }) });
    const doomed = (await created.json()) as { id: string; basic: string };
    const before = await fetch(`${b.url}/shared/xAPI/statements?limit=1`, { headers: xapiHeaders(doomed.basic) });
    expect(before.status, await before.text()).toBe(200);
    const revoked = await fetch(`${a.url}/admin/api/stores/shared/keys/${doomed.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(revoked.status).toBe(200);
    const revokedAt = performance.now();
    let status = 200;
    while (status === 200 && performance.now() - revokedAt < 3_000) {
      status = (await fetch(`${b.url}/shared/xAPI/statements?limit=1`, { headers: xapiHeaders(doomed.basic) })).status;
    }
    expect(status).toBe(401);
    expect(performance.now() - revokedAt).toBeLessThan(1_000);
  });

  it('stores a statement id sent to both processes at the same moment once, and refuses the other content of a same id', async () => {
    for (let round = 0; round < 5; round++) {
      const id = randomUUID();
      const body = JSON.stringify(statement(id));
      const answers = await Promise.all(
        [a, b].map((service) => fetch(`${service.url}/shared/xAPI/statements?statementId=${id}`, { method: 'PUT', headers: xapiHeaders(key.basic), body })),
      );
      expect(answers.map((r) => r.status)).toEqual([204, 204]);
      // The same id with other content through each: one is stored, the other is a conflict.
      const other = randomUUID();
      const conflicting = await Promise.all(
        [a, b].map((service, i) =>
          fetch(`${service.url}/shared/xAPI/statements?statementId=${other}`, {
            method: 'PUT',
            headers: xapiHeaders(key.basic),
            body: JSON.stringify({ ...statement(other), result: { response: String(i) } }),
          }),
        ),
      );
      expect(conflicting.map((r) => r.status).sort()).toEqual([204, 409]);
    }
    const page = await fetch(`${b.url}/admin/api/stores/shared/statements?limit=100`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const records = ((await page.json()) as { records: Array<{ statementId: string; status: string }> }).records;
    // The refused conflicts are in the rejected log; every stored statement is there once.
    const ids = records.filter((r) => r.status !== 'rejected').map((r) => r.statementId);
    expect(ids.length).toBeGreaterThanOrEqual(10);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('holds a key to its rate across the processes, each taking its share', async () => {
    // Two more processes with a limit of 1 request per second and bursts of 10 per key.
    const limited = await Promise.all([0, 1].map(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lore-two-'));
      dirs.push(dir);
      return startService(dir, { LRS_DATABASE_URL: database.url, LRS_RATE_LIMIT: '1', LRS_RATE_BURST: '10' });
    }));
    try {
      const created = await a.admin('/stores/shared/keys', { method: 'POST', body: JSON.stringify({ name: 'rated' }) });
      const rated = (await created.json()) as { basic: string };
      // Each process counts the processes on the database by heartbeat: four now.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      let accepted = 0;
      for (let i = 0; i < 20; i++) {
        const service = limited[i % 2]!;
        const response = await fetch(`${service.url}/shared/xAPI/statements?limit=1`, { headers: xapiHeaders(rated.basic) });
        if (response.status === 200) accepted++;
        else expect(response.status).toBe(429);
      }
      // A burst of 10 for the whole deployment: about 10 of the 20 pass (plus a token or two
      // refilled meanwhile), never the 20 that two separate limits of 10 would let through.
      expect(accepted).toBeGreaterThanOrEqual(2);
      expect(accepted).toBeLessThanOrEqual(12);
    } finally {
      for (const service of limited) {
        service.child.kill('SIGTERM');
        await service.exited;
      }
    }
  }, 60_000);
});

describe('the admin token of processes sharing a database', () => {
  it('is generated once, shown once, and accepted by every process; a reset replaces it for the next start', async () => {
    const db = await createTestDatabase();
    const started: ServiceProcess[] = [];
    const stopAll = async () => {
      for (const service of started.splice(0)) {
        service.child.kill('SIGTERM');
        await service.exited;
      }
    };
    const tokenIn = (output: string) => /admin token \(shown once[^:]*\): (\S+)/.exec(output)?.[1] ?? null;
    const accepts = async (service: ServiceProcess, token: string) =>
      (await fetch(`${service.url}/admin/api/stores`, { headers: { authorization: `Bearer ${token}` } })).status === 200;
    const startOne = async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lore-token-'));
      dirs.push(dir);
      const service = await startService(dir, { LRS_DATABASE_URL: db.url, LRS_ADMIN_TOKEN: '' });
      started.push(service);
      return service;
    };
    try {
      const first = await startOne();
      const second = await startOne();
      const token = tokenIn(first.output());
      expect(token).not.toBeNull();
      expect(tokenIn(second.output())).toBeNull();
      expect(await accepts(first, token!)).toBe(true);
      expect(await accepts(second, token!)).toBe(true);
      expect(await accepts(second, 'lore_admin_not-the-token')).toBe(false);
      await stopAll();

      const resetDir = mkdtempSync(join(tmpdir(), 'lore-token-'));
      dirs.push(resetDir);
      const reset = spawnService(resetDir, ['--reset-admin-token'], { LRS_DATABASE_URL: db.url, LRS_ADMIN_TOKEN: '' });
      expect((await reset.exited).code).toBe(0);
      const fresh = /\n(lore_admin_\S+)/.exec(reset.output())?.[1];
      expect(fresh).toBeDefined();
      const third = await startOne();
      expect(tokenIn(third.output())).toBeNull();
      expect(await accepts(third, fresh!)).toBe(true);
      expect(await accepts(third, token!)).toBe(false);
    } finally {
      await stopAll();
      await db.drop();
    }
  }, 60_000);
});
