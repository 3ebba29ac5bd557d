/**
 * The forwarding part of the Storage contract (storage/forwarders.ts), run by
 * describeStorageContract for every implementation, across reopening (on sql.js also after a
 * crash, from the journal alone): forwarders and their cursors, dead letters, the statements a
 * forwarder reads, and what emptying and deleting a Store do to them.
 */
import { describe, expect, it } from 'vitest';
import { newForwarderRecord, type ForwarderRecord } from '../../src-server/storage/forwarders';
import { makeStatement, makeStore } from './rows';
import type { ContractContext } from './storage-contract';

function forwarder(storeId: string): ForwarderRecord {
  return newForwarderRecord({
    id: `f-${Math.random().toString(36).slice(2)}`,
    storeId,
    kind: 'webhook',
    url: 'https://hooks.example.com/lrs',
    username: null,
    secret: 'a-secret-of-sixteen+',
    filter: { verb: 'http://adlnet.gov/expapi/verbs/completed' },
    createdAt: '2026-01-01T00:00:00.000Z',
    cursor: 0,
  });
}

const ERROR = { status: 503, message: '503 Service Unavailable', at: '2026-01-02T00:00:00.000Z' };

export function describeForwarderContract(ctx: ContractContext): void {
  describe('forwarders', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;

    it('keeps a forwarder, its patches and its cursor across a reopen', async () => {
      const record = forwarder(storeId());
      await s().insertForwarder(record);
      expect(await s().updateForwarder(record.id, { failingSince: ERROR.at, attempts: 2, nextAttemptAt: ERROR.at, lastError: ERROR })).toBe(true);
      expect(await s().settleForwarderBatch(record.id, { outcome: 'delivered', throughSeq: 7, throughStored: '2026-01-01T00:00:07.000Z', at: '2026-01-03T00:00:00.000Z' })).toBe(true);
      await ctx.reopen();
      expect(await s().findForwarder(record.id)).toEqual({
        ...record,
        cursor: 7,
        cursorStored: '2026-01-01T00:00:07.000Z',
        deliveredAt: '2026-01-03T00:00:00.000Z',
        lastError: ERROR,
      });
      expect(await s().listForwarders(storeId())).toHaveLength(1);
      expect((await s().listForwarders()).map((f) => f.id)).toContain(record.id);
      expect(await s().updateForwarder('nope', { paused: true })).toBe(false);
      expect(await s().settleForwarderBatch('nope', { outcome: 'delivered', throughSeq: 1, throughStored: null, at: ERROR.at })).toBe(false);
    });

    it('keeps dead letters, queues them again, and removes one once redelivered', async () => {
      const record = forwarder(storeId());
      await s().insertForwarder(record);
      await s().settleForwarderBatch(record.id, { outcome: 'dead', fromSeq: 1, throughSeq: 3, throughStored: null, statementIds: ['a', 'b'], error: ERROR, at: ERROR.at });
      await s().settleForwarderBatch(record.id, { outcome: 'dead', fromSeq: 4, throughSeq: 5, throughStored: null, statementIds: ['c'], error: ERROR, at: ERROR.at });
      await ctx.reopen();
      const letters = await s().listDeadLetters(record.id);
      expect(letters.map(({ fromSeq, throughSeq, statementIds, queued }) => ({ fromSeq, throughSeq, statementIds, queued }))).toEqual([
        { fromSeq: 1, throughSeq: 3, statementIds: ['a', 'b'], queued: false },
        { fromSeq: 4, throughSeq: 5, statementIds: ['c'], queued: false },
      ]);
      expect((await s().findForwarder(record.id))!.cursor).toBe(5);
      expect(await s().requeueDeadLetters(record.id, [letters[1]!.id])).toBe(1);
      expect(await s().requeueDeadLetters(record.id)).toBe(1);
      expect(await s().requeueDeadLetters(record.id)).toBe(0);
      // Redelivered: the letter goes, the cursor stays where it was.
      await s().settleForwarderBatch(record.id, { outcome: 'delivered', throughSeq: 3, throughStored: null, at: ERROR.at, deadLetterId: letters[0]!.id });
      // Given up on again: kept, no longer queued.
      await s().settleForwarderBatch(record.id, { outcome: 'dead', fromSeq: 4, throughSeq: 5, throughStored: null, statementIds: ['c'], error: { ...ERROR, status: 500 }, at: ERROR.at, deadLetterId: letters[1]!.id });
      await ctx.reopen();
      const left = await s().listDeadLetters(record.id);
      expect(left).toHaveLength(1);
      expect(left[0]).toMatchObject({ id: letters[1]!.id, queued: false, error: { status: 500 } });
      expect((await s().findForwarder(record.id))!.cursor).toBe(5);
      expect(await s().deleteForwarder(record.id)).toBe(true);
      expect(await s().listDeadLetters(record.id)).toEqual([]);
      expect(await s().findForwarder(record.id)).toBeNull();
      expect(await s().deleteForwarder(record.id)).toBe(false);
    });

    it('reads the Store’s durable statements by seq range, voided ones too, and counts them', async () => {
      const rows = [makeStatement({ storedAt: 1 }), makeStatement({ storedAt: 2 }), makeStatement({ storedAt: 3 })];
      await s().insertStatements(storeId(), rows);
      await s().insertStatements(storeId(), [makeStatement({ voids: rows[1]!.statementId, storedAt: 4 })]);
      const other = makeStore();
      await s().insertStore(other);
      await s().insertStatements(other.id, [makeStatement()]);
      const all = await s().readForwardable(storeId(), { afterSeq: 0, limit: 10 });
      expect(all.map((row) => row.statementId)).toEqual([...rows.map((row) => row.statementId), expect.any(String)]);
      expect(all.map((row) => row.voided)).toEqual([false, true, false, false]);
      expect(JSON.parse(all[0]!.statementJson)).toMatchObject({ id: rows[0]!.statementId });
      const seqs = all.map((row) => row.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect((await s().readForwardable(storeId(), { afterSeq: seqs[0]!, throughSeq: seqs[2]!, limit: 10 })).map((row) => row.seq)).toEqual([seqs[1], seqs[2]]);
      expect(await s().readForwardable(storeId(), { afterSeq: 0, limit: 2 })).toHaveLength(2);
      expect(await s().countForwardable(storeId(), seqs[1]!)).toBe(2);
      expect(await s().readForwardable('no-such-store', { afterSeq: 0, limit: 10 })).toEqual([]);
    });

    it('reads no statement that is not durable yet', async () => {
      const release = ctx.holdDurability();
      let acknowledged = false;
      const writing = s().insertStatements(storeId(), [makeStatement()]).then(() => (acknowledged = true));
      // Every chance for the write to get as far as it can without the disk.
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(acknowledged).toBe(false);
      expect(await s().readForwardable(storeId(), { afterSeq: 0, limit: 10 })).toEqual([]);
      expect(await s().countForwardable(storeId(), 0)).toBe(0);
      release();
      await writing;
      expect(await s().readForwardable(storeId(), { afterSeq: 0, limit: 10 })).toHaveLength(1);
    });

    it('emptying a Store keeps its forwarders and drops their dead letters; deleting it drops both', async () => {
      const record = forwarder(storeId());
      await s().insertForwarder(record);
      await s().settleForwarderBatch(record.id, { outcome: 'dead', fromSeq: 1, throughSeq: 1, throughStored: null, statementIds: ['a'], error: ERROR, at: ERROR.at });
      await s().emptyStore(storeId());
      expect(await s().findForwarder(record.id)).not.toBeNull();
      expect(await s().listDeadLetters(record.id)).toEqual([]);
      await s().deleteStore(storeId());
      await ctx.reopen();
      expect(await s().findForwarder(record.id)).toBeNull();
      expect(await s().listForwarders()).toEqual([]);
    });
  });
}
