/**
 * The audit log's part of the Storage contract, run by describeStorageContract for every
 * implementation, across reopen (and crash replay) variants: entries as written, newest first,
 * filtered and paged; pruning by age, durable like the writes.
 */
import { describe, expect, it } from 'vitest';
import type { AuditRow } from '../../src-server/storage/audit';
import type { ContractContext } from './storage-contract';

function entry(overrides: Partial<AuditRow> = {}): AuditRow {
  return {
    at: '2026-05-01T10:00:00.000Z',
    action: 'store.create',
    outcome: 'succeeded',
    store: 'demo',
    target: null,
    actor: 'admin token',
    actorDetail: '127.0.0.1',
    errorCode: null,
    detail: { name: 'Demo', nested: { scopes: ['all'] } },
    ...overrides,
  };
}

export function describeAuditContract(ctx: ContractContext): void {
  describe('the audit log', () => {
    const s = () => ctx.storage();

    it('keeps each entry as written, newest first, across a reopen', async () => {
      const first = await s().insertAuditEntry(entry());
      const second = await s().insertAuditEntry(entry({ action: 'key.revoke', outcome: 'failed', target: 'lore_test_1', errorCode: 'key_not_found', detail: null }));
      expect(second.id).toBeGreaterThan(first.id);
      await ctx.reopen();
      const page = await s().listAuditEntries({ limit: 10 });
      expect(page).toEqual({ entries: [second, first], nextBeforeId: null });
      expect(page.entries[1]).toEqual({ id: first.id, ...entry() });
    });

    it('filters by Store, action and time, and pages by id', async () => {
      await s().insertAuditEntry(entry({ at: '2026-05-01T10:00:00.000Z' }));
      await s().insertAuditEntry(entry({ at: '2026-05-02T10:00:00.000Z', store: 'other' }));
      await s().insertAuditEntry(entry({ at: '2026-05-03T10:00:00.000Z', action: 'store.delete' }));
      const actions = async (query: Parameters<ReturnType<typeof s>['listAuditEntries']>[0]) => (await s().listAuditEntries(query)).entries.map((e) => `${e.action} ${e.store}`);
      expect(await actions({ limit: 10, store: 'demo' })).toEqual(['store.delete demo', 'store.create demo']);
      expect(await actions({ limit: 10, action: 'store.create' })).toEqual(['store.create other', 'store.create demo']);
      expect(await actions({ limit: 10, since: '2026-05-02T10:00:00.000Z' })).toEqual(['store.delete demo', 'store.create other']);
      const first = await s().listAuditEntries({ limit: 2 });
      expect(first.nextBeforeId).not.toBeNull();
      expect((await s().listAuditEntries({ limit: 2, beforeId: first.nextBeforeId! })).entries.map((e) => e.store)).toEqual(['demo']);
    });

    it('prunes entries older than the cutoff, and they stay pruned across a reopen', async () => {
      await s().insertAuditEntry(entry({ at: '2025-01-01T00:00:00.000Z', store: 'old' }));
      await s().insertAuditEntry(entry({ at: '2026-01-01T00:00:00.000Z', store: 'new' }));
      expect(await s().pruneAuditEntries(Date.parse('2025-06-01T00:00:00.000Z'))).toBe(1);
      await ctx.reopen();
      expect((await s().listAuditEntries({ limit: 10 })).entries.map((e) => e.store)).toEqual(['new']);
      expect(await s().pruneAuditEntries(Date.parse('2025-06-01T00:00:00.000Z'))).toBe(0);
    });
  });
}
