/**
 * How much of the rejected-statement log and of the logs of refused requests each Store keeps,
 * the same for every Storage implementation: pruned soon after open and then periodically, never
 * on the write path; the ingestion statistics keep counting what was pruned.
 */
import { LIMIT_DEFAULTS } from '../limits/service-limits';
import type { StoreRecord } from './storage';

/** How many rejections a Store keeps: the newest `maxPerStore`, none older than `maxAgeDays`. */
export interface RetentionBounds {
  maxPerStore: number;
  maxAgeDays: number;
}

/**
 * Pruning of the rejected-statement log. Off unless given (the service turns it on with its
 * limits, src-server/limits/service-limits.ts): a storage opened by a tool or a test keeps every rejection.
 */
export interface RejectionRetention {
  /** The bounds of one Store (its own limits over the service's); default LIMIT_DEFAULTS. */
  forStore?: (store: StoreRecord) => RetentionBounds;
  /** How often the log is pruned, besides soon after open. Default 10 minutes. */
  intervalMs?: number;
}

export const DEFAULT_RETENTION_BOUNDS: RetentionBounds = {
  maxPerStore: LIMIT_DEFAULTS.rejectedRetentionCount,
  maxAgeDays: LIMIT_DEFAULTS.rejectedRetentionDays,
};
export const DEFAULT_RETENTION_INTERVAL_MS = 10 * 60_000;
