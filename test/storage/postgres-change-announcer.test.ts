/**
 * The texts of the notifications a PostgreSQL storage sends the other processes, gathered
 * (change-announcer.ts), without a database. How they reach the other processes is in
 * postgres-processes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { announcementPayloads } from '../../src-server/storage/postgres/change-announcer';
import { MAX_PAYLOAD } from '../../src-server/storage/postgres/change-feed';
import type { StorageChange } from '../../src-server/storage/storage';

const records = (storeId: string, fromSeq: number, toSeq: number, voided: string[] = []): StorageChange => ({ kind: 'records', storeId, fromSeq, toSeq, voided });
const changesOf = (payloads: string[]) => payloads.flatMap((p) => (JSON.parse(p) as { origin: string; changes: StorageChange[] }).changes);

describe('gathered change notifications', () => {
  it("tells a Store's consecutive seqs as one range, and keeps apart what is not consecutive", () => {
    const refusal: StorageChange = { kind: 'refusal', storeId: null, id: 4, status: 401, code: 'unauthorized', at: '2026-01-01T00:00:00.000Z' };
    const payloads = announcementPayloads('me', [records('s', 1, 1), records('s', 2, 3, ['v']), records('t', 4, 4), records('s', 6, 6), refusal, records('s', 7, 7)]);
    expect(payloads).toHaveLength(1);
    expect(JSON.parse(payloads[0]!).origin).toBe('me');
    expect(changesOf(payloads)).toEqual([records('s', 1, 3, ['v']), records('t', 4, 4), records('s', 6, 6), refusal, records('s', 7, 7)]);
  });

  it("splits what does not fit in one notification, in order, each under PostgreSQL's limit", () => {
    const changes = Array.from({ length: 400 }, (_, i) => records(`store-${i}`, i * 2, i * 2));
    const payloads = announcementPayloads('me', changes);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(payload.length).toBeLessThanOrEqual(MAX_PAYLOAD);
    expect(changesOf(payloads)).toEqual(changes);
  });

  it('drops the voided ids of a change too large to tell whole', () => {
    const voided = Array.from({ length: 500 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const payloads = announcementPayloads('me', [records('s', 1, 500, voided)]);
    expect(changesOf(payloads)).toEqual([records('s', 1, 500, [])]);
  });
});
