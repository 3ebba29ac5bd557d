/** A Store's retention settings (limits/store-retention.ts): patches, cutoffs, and the rejected log's bounds. */
import { describe, expect, it } from 'vitest';
import { applyStoreRetentionPatch, hasOwnRetention, rejectedBoundsWithRetention, retentionCutoffs, storeRetentionPatchSchema } from '../src-server/limits/store-retention';

const DAY = 86_400_000;

describe('a Store\'s retention', () => {
  it('keeps statements forever and the logs as the service does unless the Store sets days', () => {
    const none = applyStoreRetentionPatch(undefined, {});
    expect(none).toEqual({ statementsDays: null, rejectedDays: null, refusedDays: null });
    expect(hasOwnRetention(none)).toBe(false);
    expect(retentionCutoffs(none, 100 * DAY)).toEqual({ statementsBeforeMs: null, rejectionsBeforeMs: null, refusalsBeforeMs: null });
  });

  it('replaces only the fields a patch gives, null returning one to the default', () => {
    const set = applyStoreRetentionPatch(undefined, { statementsDays: 365, refusedDays: 7 });
    expect(retentionCutoffs(set, 400 * DAY)).toEqual({ statementsBeforeMs: 35 * DAY, rejectionsBeforeMs: null, refusalsBeforeMs: 393 * DAY });
    expect(applyStoreRetentionPatch(set, { statementsDays: null })).toEqual({ statementsDays: null, rejectedDays: null, refusedDays: 7 });
  });

  it('refuses days that are not whole, below 1 or above a hundred years, naming the field', () => {
    for (const bad of [0, 1.5, 36_501, '30']) {
      const result = storeRetentionPatchSchema.safeParse({ rejectedDays: bad });
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['rejectedDays']);
    }
    expect(storeRetentionPatchSchema.safeParse({ forever: true }).success).toBe(false);
  });

  it('lets a Store keep its rejected log longer or shorter than the service, the count bound kept', () => {
    const service = { maxPerStore: 10_000, maxAgeDays: 30 };
    expect(rejectedBoundsWithRetention(service, { statementsDays: null, rejectedDays: 90, refusedDays: null })).toEqual({ maxPerStore: 10_000, maxAgeDays: 90 });
    expect(rejectedBoundsWithRetention(service, { statementsDays: null, rejectedDays: 3, refusedDays: null })).toEqual({ maxPerStore: 10_000, maxAgeDays: 3 });
    expect(rejectedBoundsWithRetention(service, undefined)).toEqual(service);
  });
});
