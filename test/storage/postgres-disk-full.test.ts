/**
 * A full disk under PostgreSQL, for real: the test database's files live in a tablespace on a small
 * tmpfs, which a filler file then fills, so PostgreSQL itself fails to extend a table (SQLSTATE
 * 53100). The service answers 503 in plain words, keeps reads, loses nothing it acknowledged and
 * takes writes again once space is freed. Needs `mount` (root on Linux) and a server on this
 * machine (the tablespace's directory must be the server's); elsewhere it is skipped.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildTestApp, type TestApp } from '../http/test-app';
import { serverUser } from '../postgres/test-server';
import { canMount, fillDisk, mountTmpfs, unmount } from '../service/tmpfs';

const serverUrl = inject('postgresUrl');
const onThisMachine = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(serverUrl).hostname);
const runnable = onThisMachine && canMount();

/** The user the server runs as (test-server.ts): `postgres` when the tests run as root, else this one. */
function serverOwner(): { uid: number; gid: number } {
  return serverUser() ?? { uid: process.getuid!(), gid: process.getgid!() };
}

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function statement(id: string) {
  return { id, actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: `http://example.com/a/${id}` } };
}

const title = runnable
  ? 'a full disk under PostgreSQL (the database in a tablespace on a 32 MiB tmpfs)'
  : 'a full disk under PostgreSQL — skipped: needs a server on this machine and permission to mount a tmpfs';

describe.skipIf(!runnable)(title, () => {
  const tablespace = `lore_test_full_${randomUUID().slice(0, 8)}`;
  let mountPoint: string;
  let t: TestApp | undefined;

  beforeAll(async () => {
    mountPoint = mkdtempSync(join(tmpdir(), 'lore-pg-tmpfs-'));
    mountTmpfs(mountPoint, '32m', serverOwner());
    await asAdmin(`CREATE TABLESPACE ${tablespace} LOCATION '${mountPoint}'`);
    t = await buildTestApp({}, { kind: 'postgres', tablespace });
  });
  afterAll(async () => {
    await t?.close();
    await asAdmin(`DROP TABLESPACE IF EXISTS ${tablespace}`);
    unmount(mountPoint);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers 503 saying the database server is full, keeps reads, loses nothing acknowledged, and writes again once there is room', async () => {
    const app = t!;
    await app.createStore('full');
    const key = await app.createKey('full', { name: 'disk' });
    const post = (body: object) => app.xapi(key, { method: 'POST', url: '/full/xAPI/statements', payload: body });

    const acknowledged: string[] = [];
    const ids = Array.from({ length: 20 }, () => randomUUID());
    expect((await post(ids.map(statement))).statusCode).toBe(200);
    acknowledged.push(...ids);

    const filler = join(mountPoint, 'filler');
    fillDisk(filler);
    // Pages already allocated may still hold some rows: write until PostgreSQL cannot extend a file.
    let refusal: Awaited<ReturnType<typeof post>> | undefined;
    for (let batch = 0; batch < 400 && !refusal; batch++) {
      const batchIds = Array.from({ length: 100 }, () => randomUUID());
      const answer = await post(batchIds.map(statement));
      if (answer.statusCode === 200) acknowledged.push(...batchIds);
      else refusal = answer;
    }
    expect(refusal?.statusCode).toBe(503);
    expect(refusal?.headers['retry-after']).toBe('5');
    const error = (refusal!.json() as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('storage_unavailable');
    expect(error.message).toMatch(/^The database server's disk is full; nothing was stored\./);

    const read = await app.xapi(key, { method: 'GET', url: `/full/xAPI/statements?statementId=${acknowledged[0]}` });
    expect(read.statusCode).toBe(200);

    rmSync(filler);
    const after = randomUUID();
    expect((await post(statement(after))).statusCode).toBe(200);
    acknowledged.push(after);
    const store = await app.storage.findStoreBySlug('full');
    for (const id of acknowledged) expect(await app.storage.findStatement(store!.id, id), id).not.toBeNull();
  });
});
