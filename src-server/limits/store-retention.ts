/**
 * How long a Store keeps its statements, its rejected-statement log and its log of refused
 * requests (docs/erasure-and-retention.md): days per kind, null for "as the service does". The
 * service keeps statements forever and the two logs by its own bounds (10,000 entries and 30 days
 * by default: storage/retention-bounds.ts); a Store's days for rejected entries replace the
 * service's days for its log, and its days for refused entries can only shorten what the service
 * keeps. No Node imports: the admin contract (bundled by the renderer) imports the schema.
 */
import { z } from 'zod';

/** The longest period a Store may set: a hundred years. */
const MAX_DAYS = 36_500;

const days = z
  .number()
  .int(`must be a whole number of days from 1 to ${MAX_DAYS}`)
  .min(1, `must be 1 to ${MAX_DAYS} days`)
  .max(MAX_DAYS, `must be 1 to ${MAX_DAYS} days`)
  .nullable();

export const storeRetentionSchema = z.strictObject({
  /** Statements older than this many days (by `stored`) are removed; null: kept forever. */
  statementsDays: days,
  /** Rejected entries older than this (by receipt); null: the service's bound. */
  rejectedDays: days,
  /** Refused requests older than this (by their last time); null: the service's bound. */
  refusedDays: days,
});
export type StoreRetention = z.infer<typeof storeRetentionSchema>;

/** A change: each field given replaces the Store's (null returns it to the default). */
export const storeRetentionPatchSchema = storeRetentionSchema.partial();
export type StoreRetentionPatch = z.infer<typeof storeRetentionPatchSchema>;

export const DEFAULT_STORE_RETENTION: StoreRetention = { statementsDays: null, rejectedDays: null, refusedDays: null };

export function applyStoreRetentionPatch(current: StoreRetention | null | undefined, patch: StoreRetentionPatch): StoreRetention {
  return { ...DEFAULT_STORE_RETENTION, ...current, ...patch };
}

const DAY_MS = 24 * 60 * 60_000;

/** The cutoffs (epoch ms) before which a Store's rows go now; null where it keeps them as the service does. */
export function retentionCutoffs(retention: StoreRetention | null | undefined, nowMs: number): {
  statementsBeforeMs: number | null;
  rejectionsBeforeMs: number | null;
  refusalsBeforeMs: number | null;
} {
  const before = (n: number | null | undefined) => (n == null ? null : nowMs - n * DAY_MS);
  return { statementsBeforeMs: before(retention?.statementsDays), rejectionsBeforeMs: before(retention?.rejectedDays), refusalsBeforeMs: before(retention?.refusedDays) };
}

/** Whether a Store keeps anything for a period of its own. */
export function hasOwnRetention(retention: StoreRetention | null | undefined): boolean {
  return retention != null && (retention.statementsDays !== null || retention.rejectedDays !== null || retention.refusedDays !== null);
}

/**
 * The bounds of a Store's rejected log: the service's (with the Store's own limits over them), its
 * days replaced by the Store's `rejectedDays` when it sets them, longer or shorter.
 */
export function rejectedBoundsWithRetention(
  bounds: { maxPerStore: number; maxAgeDays: number },
  retention: StoreRetention | null | undefined,
): { maxPerStore: number; maxAgeDays: number } {
  return retention?.rejectedDays != null ? { ...bounds, maxAgeDays: retention.rejectedDays } : bounds;
}
