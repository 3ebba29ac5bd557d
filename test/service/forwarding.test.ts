/**
 * Forwarding from the real service: the process killed (SIGKILL) while a batch waits for its
 * acknowledgement and the receiver down for a while in between, and every statement still arrives,
 * in order, the unacknowledged batch alone arriving twice; and forwarding to a second Lore (kind
 * xapi), where the statements are found by GET.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService as startInProcess, type RunningService } from '../../src-server/service/service';
import { firstArrivals, TestReceiver, waitFor } from '../forwarding/receiver';
import { createTestDatabase } from '../postgres/test-database';
import { ADMIN_TOKEN, createStoreAndKey, startService, xapiHeaders, type ServiceProcess } from './service-process';

const SECRET = 'webhook-secret-0123456789';
const FAST_RETRIES = { LORE_FORWARDING_RETRY_BASE_MS: '50', LORE_FORWARDING_RETRY_MAX_MS: '200' };

let dirs: string[] = [];
const processes: ServiceProcess[] = [];
const services: RunningService[] = [];
const receivers: TestReceiver[] = [];
const cleanups: Array<() => Promise<void>> = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lore-forwarding-'));
  dirs.push(dir);
  return dir;
}

beforeEach(() => {
  dirs = [];
});
afterEach(async () => {
  for (const service of processes.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }
  for (const service of services.splice(0)) await service.stop();
  for (const receiver of receivers.splice(0)) await receiver.down();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function post(url: string, basic: string, slug: string, count: number, ids: string[] = [], verb = 'http://adlnet.gov/expapi/verbs/completed'): Promise<string[]> {
  const statements = Array.from({ length: count }, (_, i) => ({
    id: ids[i] ?? randomUUID(),
    actor: { mbox: 'mailto:ada@example.com' },
    verb: { id: verb },
    object: { id: `http://example.com/activities/${i}` },
  }));
  const response = await fetch(`${url}/${slug}/xAPI/statements`, { method: 'POST', headers: xapiHeaders(basic), body: JSON.stringify(statements) });
  expect(response.status, await response.clone().text()).toBe(200);
  return statements.map((statement) => statement.id);
}

describe('forwarding from the real service', { timeout: 90_000 }, () => {
  // On PostgreSQL the killed process's lease on the forwarder runs out (2 s here) before the restarted one delivers.
  it.each(['sql.js', 'PostgreSQL'])('delivers every statement in order across a receiver outage and a SIGKILL; only the unacknowledged batch twice (%s)', async (backend) => {
    const receiver = new TestReceiver(SECRET);
    receivers.push(receiver);
    await receiver.up();
    const dataDir = tempDir();
    const env: Record<string, string> = { ...FAST_RETRIES, LORE_FORWARDING_LEASE_MS: '2000' };
    if (backend === 'PostgreSQL') {
      const database = await createTestDatabase();
      cleanups.push(database.drop);
      env['LRS_DATABASE_URL'] = database.url;
    }
    let service = await startService(dataDir, env);
    processes.push(service);
    const key = await createStoreAndKey(service, 'crash');
    const created = await service.admin('/stores/crash/forwarders', { method: 'POST', body: JSON.stringify({ kind: 'webhook', url: receiver.url, secret: SECRET }) });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };

    const posted = await post(service.url, key.basic, 'crash', 10);
    await waitFor(() => receiver.ids.length === 10, 'the first statements');

    // A batch arrives and is never answered; the service is killed while it waits.
    receiver.answer = 'hang';
    posted.push(...(await post(service.url, key.basic, 'crash', 10)));
    await waitFor(() => receiver.arrived.length > receiver.batches.length, 'a batch in flight');
    const unacknowledged = receiver.arrived.at(-1)!.ids;
    service.child.kill('SIGKILL');
    await service.exited;

    // The receiver is down while the service comes back and more statements arrive.
    await receiver.down();
    receiver.answer = 200;
    service = await startService(dataDir, env);
    processes.push(service);
    posted.push(...(await post(service.url, key.basic, 'crash', 10)));
    await waitFor(async () => {
      const status = (await (await service.admin(`/stores/crash/forwarders/${id}`)).json()) as { lastError: unknown };
      return status.lastError !== null;
    }, 'the restarted service to fail against the receiver');
    await receiver.up();
    await waitFor(() => new Set(receiver.ids).size === 30, 'every statement', 20_000);

    // Everything that reached the receiver, the batch it never answered included.
    const arrived = receiver.arrived.flatMap((batch) => batch.ids);
    expect(firstArrivals(arrived)).toEqual(posted);
    expect(receiver.ids).toEqual(posted);
    // The only copies: the batch whose acknowledgement the kill cut off, sent again after the restart.
    const copies = arrived.filter((statementId, i) => arrived.indexOf(statementId) !== i);
    expect(copies).toEqual(unacknowledged);
    expect(receiver.batches.every((batch) => batch.signed)).toBe(true);
    // The last acknowledgement reaches the cursor just after the receiver has the batch.
    await waitFor(async () => {
      const status = (await (await service.admin(`/stores/crash/forwarders/${id}`)).json()) as { pending: number; deadLetters: number };
      return status.pending === 0 && status.deadLetters === 0;
    }, 'the cursor at the end, no dead letter');
  });

  it('forwards to a second Lore (kind xapi): the statements are found there by GET; one it has with other content is a dead letter', async () => {
    const start = async () => {
      const service = await startInProcess({ port: 0, host: '127.0.0.1', dataDir: tempDir(), adminToken: ADMIN_TOKEN });
      services.push(service);
      const admin = (path: string, init: RequestInit = {}) =>
        fetch(`${service.url}/admin/api${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' } });
      return { service, admin };
    };
    const source = await start();
    const target = await start();
    const asProcess = (s: { service: RunningService; admin: (path: string, init?: RequestInit) => Promise<Response> }) => ({ url: s.service.url, admin: s.admin }) as unknown as ServiceProcess;
    const sourceKey = await createStoreAndKey(asProcess(source), 'origin');
    const targetKey = await createStoreAndKey(asProcess(target), 'copy');
    const [username, password] = Buffer.from(targetKey.basic, 'base64').toString().split(':') as [string, string];
    const created = await source.admin('/stores/origin/forwarders', {
      method: 'POST',
      body: JSON.stringify({ kind: 'xapi', url: `${target.service.url}/copy/xAPI`, username, password }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    // The second Lore has one of the ids already, with other content: it refuses that one (409).
    const ids = Array.from({ length: 25 }, () => randomUUID());
    await post(target.service.url, targetKey.basic, 'copy', 1, [ids[7]!], 'http://adlnet.gov/expapi/verbs/attempted');
    const posted = await post(source.service.url, sourceKey.basic, 'origin', 25, ids);
    const { id } = (await created.json()) as { id: string };

    let found: string[] = [];
    await waitFor(async () => {
      const response = await fetch(`${target.service.url}/copy/xAPI/statements?ascending=true&limit=100`, { headers: xapiHeaders(targetKey.basic) });
      found = ((await response.json()) as { statements: Array<{ id: string }> }).statements.map((statement) => statement.id);
      return found.length === 25;
    }, 'the statements in the second Lore');
    expect(found).toEqual([ids[7], ...posted.filter((statementId) => statementId !== ids[7])]);
    let letters: Array<{ statementIds: string[]; error: { status: number } }> = [];
    await waitFor(async () => {
      letters = ((await (await source.admin(`/stores/origin/forwarders/${id}/dead-letters`)).json()) as { deadLetters: typeof letters }).deadLetters;
      return letters.length === 1;
    }, 'the refused statement as a dead letter');
    expect(letters[0]).toMatchObject({ statementIds: [ids[7]], error: { status: 409 } });
    // Sent again (what a lost acknowledgement leads to), the same statements are taken as already there.
    const stored = await fetch(`${source.service.url}/origin/xAPI/statements?ascending=true&limit=5`, { headers: xapiHeaders(sourceKey.basic) });
    const batch = ((await stored.json()) as { statements: unknown[] }).statements;
    const again = await fetch(`${target.service.url}/copy/xAPI/statements`, { method: 'POST', headers: xapiHeaders(targetKey.basic), body: JSON.stringify(batch) });
    expect(again.status, await again.clone().text()).toBe(200);
  });
});
