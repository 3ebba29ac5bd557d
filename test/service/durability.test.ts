import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStoreAndKey, spawnService, startService, xapiHeaders, type ServiceProcess } from './service-process';

let dataDir: string;
const running: ServiceProcess[] = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'lore-durability-'));
});
afterEach(async () => {
  for (const service of running.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServiceProcess> {
  const service = await startService(dataDir);
  running.push(service);
  return service;
}

function statementFor(id: string) {
  return {
    id,
    actor: { mbox: 'mailto:ada@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
    object: { id: `http://example.com/activities/${id}` },
  };
}

async function countStatements(service: ServiceProcess, basic: string, slug: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let url = `${service.url}/${slug}/xAPI/statements?limit=500`;
  while (url) {
    const response = await fetch(url, { headers: xapiHeaders(basic) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { statements: Array<{ id: string }>; more: string };
    body.statements.forEach((s) => ids.add(s.id));
    url = body.more ? `${service.url}${body.more}` : '';
  }
  return ids;
}

// Each test starts the service two or three times (node with its TypeScript loader): on a busy
// machine that alone nears the default 20 s.
describe('the real service process', { timeout: 60_000 }, () => {
  it('keeps every acknowledged statement after SIGKILL', async () => {
    const first = await start();
    const key = await createStoreAndKey(first, 'crash');
    const acknowledged: string[] = [];
    // Concurrent writers, so that group commit has many records in flight when the kill lands.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = 0; i < 25; i++) {
          const id = randomUUID();
          const response = await fetch(`${first.url}/crash/xAPI/statements`, {
            method: 'POST',
            headers: xapiHeaders(key.basic),
            body: JSON.stringify(statementFor(id)),
          });
          if (response.status === 200) acknowledged.push(id);
        }
      }),
    );
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await start();
    const found = await countStatements(second, key.basic, 'crash');
    expect(acknowledged.length).toBe(200);
    expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
  });

  it('recovers from a torn journal tail and keeps every complete record', async () => {
    const first = await start();
    const key = await createStoreAndKey(first, 'torn');
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) {
      const response = await fetch(`${first.url}/torn/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statementFor(id)) });
      expect(response.status).toBe(200);
    }
    first.child.kill('SIGKILL');
    await first.exited;

    const journal = readdirSync(dataDir).find((name) => name.includes('journal'));
    expect(journal, `journal file in ${readdirSync(dataDir).join(', ')}`).toBeDefined();
    const journalPath = join(dataDir, journal!);
    const sizeBefore = statSync(journalPath).size;
    // A record header promising more bytes than follow: what a power cut mid-write leaves.
    appendFileSync(journalPath, Buffer.from([0x00, 0x00, 0x10, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x7b, 0x22]));

    const second = await start();
    const found = await countStatements(second, key.basic, 'torn');
    expect([...ids].every((id) => found.has(id))).toBe(true);
    expect(statSync(journalPath).size).toBeLessThanOrEqual(sizeBefore + 10);
    // Writes go on after recovery.
    const after = await fetch(`${second.url}/torn/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statementFor(randomUUID())) });
    expect(after.status).toBe(200);
  });

  it('refuses to start a second process on the same data directory, clearly', async () => {
    await start();
    const second = spawnService(dataDir);
    const { code } = await second.exited;
    expect(code).not.toBe(0);
    expect(second.output()).toMatch(/in use/i);
  });

  it('stops gracefully on SIGTERM, and the data is there after a restart', async () => {
    const first = await start();
    const key = await createStoreAndKey(first, 'graceful');
    const id = randomUUID();
    await fetch(`${first.url}/graceful/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statementFor(id)) });
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const second = await start();
    expect((await countStatements(second, key.basic, 'graceful')).has(id)).toBe(true);
  });

  it('finishes its snapshot when the stop signal arrives twice, as terminals and npm relay it', async () => {
    const service = await start();
    await createStoreAndKey(service, 'twice');
    service.child.kill('SIGINT');
    service.child.kill('SIGINT');
    expect((await service.exited).code).toBe(0);
    expect(readdirSync(dataDir)).toContain('lore.sqlite');
    expect(readdirSync(dataDir)).not.toContain('lore.lock');
  });
});
