/**
 * A full disk under the real service process: the data directory lives on a small tmpfs, which a
 * filler file then fills. Needs `mount` (root on Linux); elsewhere the suite is skipped, and
 * faults-injected-fs.test.ts covers the same behaviour with an injected file layer.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreAndKey, startService, xapiHeaders, type ServiceProcess } from './service-process';
import { canMount, fillDisk, mountTmpfs, unmount } from './tmpfs';

const mountable = canMount();
const title = mountable
  ? 'a full disk under the real service process (data directory on an 8 MiB tmpfs)'
  : 'a full disk under the real service process — skipped: mounting a tmpfs is not permitted here';

function statementFor(id: string) {
  return { id, actor: { mbox: 'mailto:ada@example.com' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: `http://example.com/a/${id}` } };
}

describe.skipIf(!mountable)(title, () => {
  let mountPoint: string;
  let dataDir: string;
  let filler: string;
  let service: ServiceProcess | undefined;

  beforeAll(() => {
    mountPoint = mkdtempSync(join(tmpdir(), 'lore-tmpfs-'));
    mountTmpfs(mountPoint);
    dataDir = join(mountPoint, 'data');
    filler = join(mountPoint, 'filler');
    mkdirSync(dataDir);
  });
  afterAll(async () => {
    if (service && service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    unmount(mountPoint);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  const post = (id: string) =>
    fetch(`${service!.url}/disk/xAPI/statements`, { method: 'POST', headers: xapiHeaders(key.basic), body: JSON.stringify(statementFor(id)) });
  let key: { basic: string };

  it('refuses writes with 503 while the disk is full, keeps reads, takes writes again by itself, and loses nothing acknowledged', async () => {
    service = await startService(dataDir);
    key = await createStoreAndKey(service, 'disk');
    const acknowledged: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      expect((await post(id)).status).toBe(200);
      acknowledged.push(id);
    }

    fillDisk(filler);
    // The journal's last page may still have room for a record or two: write until one is refused.
    const refused: string[] = [];
    let refusal: Response | undefined;
    for (let i = 0; i < 200 && !refusal; i++) {
      const id = randomUUID();
      const response = await post(id);
      if (response.status === 200) acknowledged.push(id);
      else {
        refused.push(id);
        refusal = response;
      }
    }
    expect(refusal?.status).toBe(503);
    const body = (await refusal!.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('storage_unavailable');
    expect(body.error.message).toMatch(/disk .*full/i);
    expect(refusal!.headers.get('retry-after')).not.toBeNull();

    // Reads keep working, and once the durable state is reloaded the refused statement is not there.
    const reloadDeadline = Date.now() + 10_000;
    while (!/reloaded the durable state/.test(service.output()) && Date.now() < reloadDeadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const read = await fetch(`${service.url}/disk/xAPI/statements?statementId=${acknowledged[0]}`, { headers: xapiHeaders(key.basic) });
    expect(read.status).toBe(200);
    const missing = await fetch(`${service.url}/disk/xAPI/statements?statementId=${refused[0]}`, { headers: xapiHeaders(key.basic) });
    expect(missing.status).toBe(404);

    // Space returns: writes resume without a restart (the disk is probed again after 1 s, then 2 s, ...).
    rmSync(filler);
    const deadline = Date.now() + 40_000;
    let resumed = false;
    while (!resumed && Date.now() < deadline) {
      const id = randomUUID();
      const response = await post(id);
      if (response.status === 200) {
        acknowledged.push(id);
        resumed = true;
      } else {
        expect(response.status).toBe(503);
        refused.push(id);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    expect(resumed).toBe(true);

    // Every acknowledged statement survives kill -9; no refused one appears.
    service.child.kill('SIGKILL');
    await service.exited;
    service = await startService(dataDir);
    for (const id of acknowledged) {
      const response = await fetch(`${service.url}/disk/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(key.basic) });
      expect(response.status, `acknowledged ${id}`).toBe(200);
    }
    for (const id of refused) {
      const response = await fetch(`${service.url}/disk/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(key.basic) });
      expect(response.status, `refused ${id}`).toBe(404);
    }
  }, 90_000);

  it('never shows a refused statement, not even right after the refusal, while other writes are in flight', async () => {
    // The service of the test above, with room again; the disk fills once more.
    fillDisk(filler);
    const batches: string[][] = Array.from({ length: 6 }, () => Array.from({ length: 100 }, () => randomUUID()));
    const seenRefused: string[] = [];
    let refusedBatches = 0;
    await Promise.all(
      batches.map(async (ids) => {
        const response = await fetch(`${service!.url}/disk/xAPI/statements`, {
          method: 'POST',
          headers: xapiHeaders(key.basic),
          body: JSON.stringify(ids.map(statementFor)),
        });
        if (response.status === 200) return;
        expect(response.status).toBe(503);
        refusedBatches++;
        // At once, as a forwarder or the Explorer would: none of the refused batch is there.
        for (const id of ids.slice(0, 20)) {
          const read = await fetch(`${service!.url}/disk/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(key.basic) });
          if (read.status !== 404) seenRefused.push(id);
        }
        const page = (await (await fetch(`${service!.url}/disk/xAPI/statements?limit=500`, { headers: xapiHeaders(key.basic) })).json()) as { statements: Array<{ id: string }> };
        seenRefused.push(...page.statements.map((st) => st.id).filter((id) => ids.includes(id)));
      }),
    );
    expect(refusedBatches).toBeGreaterThan(0);
    expect(seenRefused).toEqual([]);
    rmSync(filler);
  }, 60_000);
});
