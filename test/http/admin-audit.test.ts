/**
 * The audit log (GET /admin/api/audit): every admin action with who, what and its outcome, refused
 * ones too, never a secret; newest first, paged and filtered; written through the storage's
 * durable path (found again by a storage reopened on the data) and pruned after its retention.
 */
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src-server/admin/audit-log';
import { ADMIN_CLIENT_HEADER } from '../../src-server/admin/contract';
import type { AuditPageView } from '../../src-server/admin/contract';
import { useDemoStore } from './test-app';

const ctx = useDemoStore();

async function audit(query = ''): Promise<AuditPageView> {
  const response = await ctx.t.admin({ method: 'GET', url: `/admin/api/audit${query}` });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as AuditPageView;
}

/** The entry of `action` once it is there (a streamed answer's is written when the stream has ended). */
async function entryOf(action: string) {
  for (let i = 0; i < 50; i++) {
    const [entry] = (await audit(`?action=${action}`)).entries;
    if (entry) return entry;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no audit entry of ${action}`);
}

describe('the audit log', () => {
  it('keeps each Store and key action with who did it, its target and outcome, never a secret', async () => {
    const created = await ctx.t.createKey('demo', { name: 'LMS key', scopes: ['statements/write'] });
    const rotate = await ctx.t.admin({ method: 'POST', url: `/admin/api/stores/demo/keys/${created.id}/rotate`, payload: {} });
    expect(rotate.statusCode, rotate.body).toBe(201);
    const replacement = (rotate.json() as { replacement: { id: string; secret: string } }).replacement;
    expect((await ctx.t.admin({ method: 'DELETE', url: `/admin/api/stores/demo/keys/${replacement.id}` })).statusCode).toBe(200);
    expect((await ctx.t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { name: 'Renamed' } })).statusCode).toBe(200);
    await ctx.t.createStore('prod', 'live');
    // Refused: a live Store is emptied only with its slug typed back.
    expect((await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/prod/empty' })).statusCode).toBe(400);
    const desktop = await ctx.t.admin({ method: 'DELETE', url: '/admin/api/stores/prod?confirm=prod', headers: { [ADMIN_CLIENT_HEADER]: 'desktop; user=ada%20l' } });
    expect(desktop.statusCode).toBe(204);

    const { entries } = await audit();
    const rows = entries.map((e) => [e.action, e.outcome, e.store, e.target, e.actor, e.errorCode]);
    expect(rows).toEqual([
      ['store.delete', 'succeeded', 'prod', null, 'desktop app', null],
      ['store.empty', 'failed', 'prod', null, 'admin token', 'confirmation_required'],
      ['store.create', 'succeeded', 'prod', null, 'admin token', null],
      ['store.update', 'succeeded', 'demo', null, 'admin token', null],
      ['key.revoke', 'succeeded', 'demo', replacement.id, 'admin token', null],
      ['key.rotate', 'succeeded', 'demo', created.id, 'admin token', null],
      ['key.create', 'succeeded', 'demo', created.id, 'admin token', null],
      // useDemoStore's own key and Store
      ['key.create', 'succeeded', 'demo', expect.any(String), 'admin token', null],
      ['store.create', 'succeeded', 'demo', null, 'admin token', null],
    ]);
    expect(entries[0]!.actorDetail).toBe('ada l');
    expect(entries[1]!.actorDetail).toBe('127.0.0.1');
    expect(entries.find((e) => e.action === 'store.update')!.detail).toEqual({ name: 'Renamed' });
    expect(entries.find((e) => e.action === 'key.rotate')!.detail).toEqual({ replacement: replacement.id });
    expect(entries.find((e) => e.target === created.id && e.action === 'key.create')!.detail).toEqual({ name: 'LMS key', scopes: ['statements/write'] });
    const all = JSON.stringify(entries);
    for (const secret of [created.secret, replacement.secret, ctx.key.secret]) expect(all).not.toContain(secret);
  });

  it('keeps an export once it has ended, with its format, filters and count; a refused request of no token is no entry', async () => {
    const sent = await ctx.t.xapi(ctx.key, {
      method: 'POST',
      url: '/demo/xAPI/statements',
      payload: [1, 2, 3].map((i) => ({ actor: { mbox: `mailto:l${i}@example.com` }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { en: 'completed' } }, object: { id: `http://example.com/${i}` } })),
    });
    expect(sent.statusCode).toBe(200);
    expect((await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/demo/export?format=csv&verb=completed' })).statusCode).toBe(200);
    const entry = await entryOf('statements.export');
    expect(entry).toMatchObject({ outcome: 'succeeded', store: 'demo', detail: { format: 'csv', filters: { verb: 'completed' }, count: 3, complete: true } });
    const refused = await ctx.t.admin({ method: 'GET', url: '/admin/api/stores/demo/export?format=pdf' });
    expect(refused.statusCode).toBe(400);
    expect((await audit('?action=statements.export')).entries[0]).toMatchObject({ outcome: 'failed', errorCode: 'invalid_parameter' });
    const before = (await audit()).entries.length;
    expect((await ctx.t.app.inject({ method: 'DELETE', url: '/admin/api/stores/demo' })).statusCode).toBe(401);
    expect((await audit()).entries.length).toBe(before);
  });

  it('keeps a backup download, or its refusal where the storage takes none', async () => {
    const response = await ctx.t.admin({ method: 'POST', url: '/admin/api/backups' });
    const entry = await entryOf('backup.download');
    if (response.statusCode === 200) expect(entry).toMatchObject({ outcome: 'succeeded', errorCode: null });
    else expect(entry).toMatchObject({ outcome: 'failed', errorCode: 'backup_not_supported' });
  });

  it('pages newest first by cursor, filters by Store, action and time, and names the field it cannot read', async () => {
    for (const name of ['One', 'Two', 'Three']) await ctx.t.admin({ method: 'PATCH', url: '/admin/api/stores/demo', payload: { name } });
    const first = await audit('?action=store.update&limit=2');
    expect(first.entries.map((e) => e.detail)).toEqual([{ name: 'Three' }, { name: 'Two' }]);
    const second = await audit(`?action=store.update&limit=2&cursor=${first.next}`);
    expect(second.entries.map((e) => e.detail)).toEqual([{ name: 'One' }]);
    expect(second.next).toBeNull();
    expect((await audit('?store=demo')).entries).toHaveLength(5);
    expect((await audit('?store=other')).entries).toHaveLength(0);
    expect((await audit(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).entries).toHaveLength(0);
    for (const [query, field] of [
      ['?since=today', 'since'],
      ['?limit=0', 'limit'],
      ['?cursor=abc', 'cursor'],
      ['?action=DROP TABLE', 'action'],
      ['?secret=1', ''],
    ] as const) {
      const response = await ctx.t.admin({ method: 'GET', url: `/admin/api/audit${query}` });
      expect(response.statusCode, query).toBe(400);
      expect((response.json() as { error: { field?: string } }).error.field ?? '', query).toBe(field);
    }
  });

  it('is written durably and pruned after its retention, the pruning durable too', async () => {
    const log = new AuditLog(ctx.t.storage, { retentionDays: 365 });
    const now = Date.parse('2026-06-01T00:00:00Z');
    const actor = { actor: 'admin token', detail: '10.0.0.1' } as const;
    await log.record({ action: 'store.create', outcome: 'succeeded', store: 'old', actor, at: '2025-05-01T00:00:00.000Z' });
    await log.record({ action: 'store.create', outcome: 'succeeded', store: 'recent', actor, at: '2025-07-01T00:00:00.000Z' });
    expect(await log.prune(now)).toBe(1);
    await ctx.t.app.close();
    await ctx.t.storage.close();
    const reopened = await ctx.t.reopenStorage();
    const page = await reopened.listAuditEntries({ limit: 50 });
    expect(page.entries.map((e) => e.store)).toContain('recent');
    expect(page.entries.map((e) => e.store)).not.toContain('old');
    expect(page.entries.find((e) => e.store === 'recent')).toMatchObject({ actor: 'admin token', actorDetail: '10.0.0.1', detail: null });
    expect(page.entries.filter((e) => e.action === 'key.create')).toHaveLength(1);
  });

  it('keeps erasures, imports and forwarder changes, never the learner, a destination\'s secret or its path', async () => {
    const ada = { mbox: 'mailto:ada.audit@example.com' };
    const statement = { actor: ada, verb: { id: 'http://adlnet.gov/expapi/verbs/completed' }, object: { id: 'http://example.com/audit' } };
    expect((await ctx.t.xapi(ctx.key, { method: 'POST', url: '/demo/xAPI/statements', payload: [statement] })).statusCode).toBe(200);
    const dryRun = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/demo/erasures', payload: { agent: ada, dryRun: true } });
    expect(dryRun.statusCode, dryRun.body).toBe(200);
    const erased = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/demo/erasures', payload: { agent: ada } });
    expect(erased.statusCode, erased.body).toBe(200);
    const ledger = (erased.json() as { erasure: { id: string; ifiHashes: string[] } }).erasure;

    const webhook = 'https://hooks.example.com/services/T0KEN-IN-PATH?sig=abc';
    const created = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/demo/forwarders', payload: { kind: 'webhook', url: webhook, secret: 'webhook-secret-123' } });
    expect(created.statusCode, created.body).toBe(201);
    const forwarder = (created.json() as { id: string }).id;
    expect((await ctx.t.admin({ method: 'PATCH', url: `/admin/api/stores/demo/forwarders/${forwarder}`, payload: { paused: true } })).statusCode).toBe(200);
    expect((await ctx.t.admin({ method: 'DELETE', url: `/admin/api/stores/demo/forwarders/${forwarder}` })).statusCode).toBe(204);

    const line = JSON.stringify({ ...statement, id: '2f0c7a3e-8e1b-4f57-9a40-6f1f3c2d1e0a', actor: { mbox: 'mailto:grace.audit@example.com' } });
    const started = await ctx.t.admin({ method: 'POST', url: '/admin/api/stores/demo/imports?fileName=old.ndjson', headers: { 'content-type': 'application/x-ndjson' }, payload: `${line}\n` });
    expect(started.statusCode, started.body).toBe(201);
    const importId = (started.json() as { id: string }).id;

    const erasures = (await audit('?action=learner.erase')).entries;
    expect(erasures.map((e) => [e.outcome, e.store, e.actor, (e.detail as { dryRun: boolean }).dryRun])).toEqual([
      ['succeeded', 'demo', 'admin token', false],
      ['succeeded', 'demo', 'admin token', true],
    ]);
    expect(erasures[0]!.detail).toMatchObject({ erasure: ledger.id, ifiHashes: ledger.ifiHashes, counts: { statements: 1 } });
    expect(erasures[1]!.detail).toMatchObject({ counts: { statements: 1 } });
    const forwarders = (await audit()).entries.filter((e) => e.action.startsWith('forwarder.'));
    expect(forwarders.map((e) => [e.action, e.target, e.detail])).toEqual([
      ['forwarder.delete', forwarder, null],
      ['forwarder.update', forwarder, { paused: true }],
      ['forwarder.create', forwarder, { kind: 'webhook', destination: 'https://hooks.example.com' }],
    ]);
    // The import's start (who asked) and its end (the service). An NDJSON upload is read before its
    // request is answered, so its end may be written before the request's entry.
    let imports = (await audit('?action=statements.import')).entries;
    for (let i = 0; i < 100 && imports.length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      imports = (await audit('?action=statements.import')).entries;
    }
    const byActor = (actor: string) => imports.find((e) => e.actor === actor);
    expect(imports).toHaveLength(2);
    expect(byActor('admin token')).toMatchObject({ outcome: 'succeeded', target: importId, detail: { kind: 'ndjson', fileName: 'old.ndjson' } });
    expect(byActor('service')).toMatchObject({ outcome: 'succeeded', target: importId, detail: { kind: 'ndjson', counts: { imported: 1 } } });

    const all = JSON.stringify((await audit('?limit=500')).entries);
    for (const secret of ['ada.audit@example.com', 'webhook-secret-123', 'T0KEN-IN-PATH', 'sig=abc']) expect(all).not.toContain(secret);
  });
});
