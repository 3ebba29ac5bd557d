/**
 * The desktop app's export against a real service: the Explorer's filter is checked before
 * anything is fetched, the file streams to the path the user chose, and the service's audit log
 * says the desktop app did it (and any admin call it forwards), with the OS user.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStreamToFile } from '../../src-main/backup-saver';
import { saveExport } from '../../src-main/download-saver';
import { forwardAdminCall, type TargetResolution } from '../../src-main/admin-forwarder';
import type { AuditPageView } from '../../src-server/admin/contract';
import { startService } from '../../src-server/service/service';
import type { RunningService } from '../../src-server/service/service';

const TOKEN = 'test-admin-token-0123456789';

describe('the desktop app saving an export', () => {
  let service: RunningService;
  let dir: string;
  let ids: string[];
  const target = (): TargetResolution => ({ ok: true, target: { url: service.url, token: TOKEN } });
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${service.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-export-saver-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir: join(dir, 'data'), adminToken: TOKEN });
    expect((await admin('POST', '/stores', { slug: 'desk', name: 'Desk' })).status).toBe(201);
    const key = (await (await admin('POST', '/stores/desk/keys', { name: 'k' })).json()) as { id: string; secret: string };
    const sent = await fetch(`${service.url}/desk/xAPI/statements`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
      body: JSON.stringify(['a', 'b', 'c'].map((who) => ({ actor: { mbox: `mailto:${who}@example.com` }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/x' } }))),
    });
    ids = (await sent.json()) as string[];
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams the filtered export to the chosen path, named as the service names it, and is audited as the desktop app', async () => {
    let suggested = '';
    const path = join(dir, 'out.ndjson');
    const result = await saveExport(
      { resolveTarget: target, fetch, writeFile: writeStreamToFile, choosePath: async (name) => ((suggested = name), path) },
      { slug: 'desk', query: 'format=ndjson&agent=b%40example.com' },
    );
    expect(result).toEqual({ ok: true, value: path });
    expect(suggested).toMatch(/^desk-statements-[0-9TZ-]+\.ndjson$/);
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id: string });
    expect(lines.map((s) => s.id)).toEqual([ids[1]]);
    const audit = (await (await admin('GET', '/audit?action=statements.export')).json()) as AuditPageView;
    expect(audit.entries[0]).toMatchObject({ actor: 'desktop app', actorDetail: userInfo().username, store: 'desk', outcome: 'succeeded' });
  });

  it("marks the forwarded admin calls too: the audit log names the desktop app and its user", async () => {
    const renamed = await forwardAdminCall('stores.rename', { slug: 'desk', name: 'Desk, renamed' }, target);
    expect(renamed.ok).toBe(true);
    const audit = (await (await admin('GET', '/audit?action=store.update')).json()) as AuditPageView;
    expect(audit.entries[0]).toMatchObject({ actor: 'desktop app', actorDetail: userInfo().username, detail: { name: 'Desk, renamed' } });
  });

  it('refuses a filter the contract cannot read before fetching, and reports a cancelled dialog and a refusal', async () => {
    const never = async (): Promise<Response> => {
      throw new Error('fetched');
    };
    const deps = { resolveTarget: target, fetch: never, writeFile: writeStreamToFile, choosePath: async () => undefined };
    const bad = await saveExport(deps, { slug: 'desk', query: 'format=pdf' });
    expect(bad).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_parameter' } });
    expect((bad as { error: { message: string } }).error.message).toMatch(/format/);
    const canceled = await saveExport({ ...deps, fetch }, { slug: 'desk', query: 'format=csv' });
    expect(canceled).toMatchObject({ ok: false, error: { code: 'canceled' } });
    const missing = await saveExport({ ...deps, fetch }, { slug: 'nowhere', query: 'format=csv' });
    expect(missing).toMatchObject({ ok: false, error: { status: 404, code: 'store_not_found' } });
  });
});
