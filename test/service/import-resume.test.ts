/**
 * An import survives the service's death (docs/import.md): the real service pulls from another LRS
 * (an app listening in this process) in small pages, is killed with SIGKILL in the middle, and,
 * started again on its data directory, continues by itself and ends with every statement of the
 * source once, in the source's order.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTestApp, statement, type CreatedKey, type TestApp } from '../http/test-app';
import { createStoreAndKey, startService, xapiHeaders, type ServiceProcess } from './service-process';

const STATEMENTS = 1000;

let dataDir: string;
let source: TestApp;
const running: ServiceProcess[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'lore-import-resume-'));
});
afterEach(async () => {
  for (const service of running.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }
  await source?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServiceProcess> {
  // Ten statements a page: the import spans a hundred pages, time enough to be killed in the middle.
  const service = await startService(dataDir, { LORE_IMPORT_PAGE_SIZE: '10' });
  running.push(service);
  return service;
}

async function sourceIds(key: CreatedKey): Promise<string[]> {
  const ids: string[] = [];
  let url = '/origin/xapi/statements?ascending=true&limit=500';
  while (url) {
    const response = await source.xapi(key, { method: 'GET', url });
    const body = response.json() as { statements: Array<{ id: string }>; more: string };
    ids.push(...body.statements.map((s) => s.id));
    url = body.more;
  }
  return ids;
}

async function importedIds(service: ServiceProcess, basic: string): Promise<string[]> {
  const ids: string[] = [];
  let url = `${service.url}/copy/xapi/statements?ascending=true&limit=500`;
  while (url) {
    const response = await fetch(url, { headers: xapiHeaders(basic) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { statements: Array<{ id: string }>; more: string };
    ids.push(...body.statements.map((s) => s.id));
    url = body.more ? `${service.url}${body.more}` : '';
  }
  return ids;
}

interface Job {
  state: string;
  counts: { read: number; imported: number; alreadyPresent: number };
  error: string | null;
}

async function job(service: ServiceProcess, id: string): Promise<Job> {
  const response = await service.admin(`/stores/copy/imports/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Job;
}

describe('an import in the real service process', { timeout: 90_000 }, () => {
  it('continues after SIGKILL and ends with every statement once', async () => {
    source = await buildTestApp();
    await source.app.listen({ port: 0, host: '127.0.0.1' });
    const sourceUrl = `http://127.0.0.1:${(source.app.server.address() as { port: number }).port}`;
    await source.createStore('origin');
    const sourceKey = await source.createKey('origin');
    for (let batch = 0; batch < STATEMENTS / 100; batch++) {
      const statements = Array.from({ length: 100 }, () => statement({ id: randomUUID() }));
      const response = await source.xapi(sourceKey, { method: 'POST', url: '/origin/xapi/statements', payload: statements });
      expect(response.statusCode).toBe(200);
    }
    const expected = await sourceIds(sourceKey);
    expect(expected).toHaveLength(STATEMENTS);

    const first = await start();
    const key = await createStoreAndKey(first, 'copy');
    const started = await first.admin('/stores/copy/imports', {
      method: 'POST',
      body: JSON.stringify({ kind: 'lrs', endpoint: `${sourceUrl}/origin/xapi/`, key: sourceKey.id, secret: sourceKey.secret }),
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };

    // Killed once a part is imported, the rest not yet.
    let seen: Job;
    for (;;) {
      seen = await job(first, id);
      if (seen.counts.read >= 100 || seen.state !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    first.child.kill('SIGKILL');
    await first.exited;
    expect(seen.state).toBe('running');
    expect(seen.counts.read).toBeLessThan(STATEMENTS);

    const second = await start();
    const deadline = Date.now() + 60_000;
    let ended: Job;
    for (;;) {
      ended = await job(second, id);
      if (ended.state === 'finished' || ended.state === 'failed' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(ended.state, ended.error ?? '').toBe('finished');
    // Whatever was imported before the kill and read again counts as already present, never twice.
    expect(ended.counts.imported).toBeLessThanOrEqual(STATEMENTS);
    expect(ended.counts.imported + ended.counts.alreadyPresent).toBeGreaterThanOrEqual(STATEMENTS);
    expect(await importedIds(second, key.basic)).toEqual(expected);
  });
});
