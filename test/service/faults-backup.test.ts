/**
 * Backups of the real service process with the commands an admin runs: `npm run backup` while
 * content keeps writing, then `npm run restore` into a fresh directory and a service started on it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScript } from './scripts';
import { createStoreAndKey, startService, xapiHeaders, type ServiceProcess } from './service-process';


let root: string;
const running: ServiceProcess[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'lore-backup-'));
});
afterEach(async () => {
  for (const service of running.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }
  rmSync(root, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<ServiceProcess> {
  const service = await startService(dataDir);
  running.push(service);
  return service;
}


function statementFor(id: string) {
  return { id, actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: `http://example.com/a/${id}` } };
}

async function statementIdsIn(file: string): Promise<Set<string>> {
  const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
  const db = new SQL.Database(readFileSync(file));
  try {
    return new Set((db.exec('SELECT statement_id FROM statements')[0]?.values ?? []).map(([id]) => id as string));
  } finally {
    db.close();
  }
}

describe('backup and restore of a running service', () => {
  it('backs up under concurrent writes every statement acknowledged before the backup started, and restores into a service that starts from it', async () => {
    const source = join(root, 'source');
    const service = await start(source);
    const key = await createStoreAndKey(service, 'backup');
    const acknowledged: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 150 && writing; i++) {
        const id = randomUUID();
        const response = await fetch(`${service.url}/backup/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statementFor(id)) });
        expect(response.status).toBe(200);
        acknowledged.push(id);
      }
    });
    while (acknowledged.length < 40) await new Promise((resolve) => setImmediate(resolve));

    const before = [...acknowledged];
    const file = join(root, 'lore-backup.sqlite');
    const backup = await runScript('backup', ['--url', service.url, '--out', file]);
    writing = false;
    await Promise.all(writers);
    expect(backup.output).toMatch(/backup written to/);
    expect(backup.code).toBe(0);
    expect(existsSync(`${file}.part`)).toBe(false);

    const inBackup = await statementIdsIn(file);
    expect(before.filter((id) => !inBackup.has(id))).toEqual([]);

    // Not over a directory a service holds.
    const refused = await runScript('restore', ['--data-dir', source, '--from', file]);
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/in use .*Stop the service/s);

    const target = join(root, 'restored');
    const restored = await runScript('restore', ['--data-dir', target, '--from', file]);
    expect(restored.output).toMatch(/restored/);
    expect(restored.code).toBe(0);

    const second = await start(target);
    for (const id of before) {
      const response = await fetch(`${second.url}/backup/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(key.basic) });
      expect(response.status, id).toBe(200);
    }
    // The restored service takes writes, and keeps them across a kill.
    const id = randomUUID();
    const write = await fetch(`${second.url}/backup/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statementFor(id)) });
    expect(write.status).toBe(200);
    second.child.kill('SIGKILL');
    await second.exited;
    const third = await start(target);
    expect((await fetch(`${third.url}/backup/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(key.basic) })).status).toBe(200);
  }, 60_000);

  it('refuses a backup without the admin token and a restore from a file that is not a Lore database', async () => {
    const service = await start(join(root, 'source'));
    const unauthorised = await fetch(`${service.url}/admin/api/backups`, { method: 'POST' });
    expect(unauthorised.status).toBe(401);

    const notLore = join(root, 'not-lore.sqlite');
    const SQL = await initSqlJs({ locateFile: () => createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm') });
    const db = new SQL.Database();
    db.exec('CREATE TABLE t (x)');
    writeFileSync(notLore, db.export());
    db.close();
    const result = await runScript('restore', ['--data-dir', join(root, 'other'), '--from', notLore]);
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/not a Lore one/);
    expect(existsSync(join(root, 'other', 'lore.sqlite'))).toBe(false);
  });
});
