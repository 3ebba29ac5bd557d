/**
 * The Ingestion screen's report: statements received per minute, hour or day, accepted against
 * rejected, with totals and the top verbs and activities, for one Store or every Store. A plain
 * function over Storage: it settles the range, storage counts.
 */
import { preferredText } from '../xapi/language-map';
import type { IngestionBucket, Storage, StoreRecord } from '../storage/storage';
import type { IngestionQueryInput, IngestionReportView } from './contract';

const BUCKET_MS: Record<IngestionBucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Without `since`, a report covers this many buckets, the current one included. */
const DEFAULT_BUCKETS: Record<IngestionBucket, number> = { minute: 60, hour: 24, day: 30 };

/** A chart has no use for more points; a longer range takes a larger bucket. */
const MAX_BUCKETS = 2000;

const TOP_LIST_LENGTH = 10;

export type RangeResult = { ok: true; since: number; until: number } | { ok: false; field: 'since' | 'until'; message: string };

/**
 * The bucket-aligned range [since, until) a query covers (epoch ms, UTC bucket boundaries): the
 * bucket holding `since` to the end of the bucket holding the instant before `until`. Defaults:
 * `until` now, `since` DEFAULT_BUCKETS before it.
 */
export function ingestionRange(input: Pick<IngestionQueryInput, 'bucket' | 'since' | 'until'>, now = Date.now()): RangeResult {
  const size = BUCKET_MS[input.bucket];
  const untilMs = input.until === undefined ? now : Date.parse(input.until);
  // The bucket holding the last instant of the range ends the range (an open bucket included).
  const until = Math.floor((untilMs - 1) / size) * size + size;
  const since =
    input.since === undefined ? until - DEFAULT_BUCKETS[input.bucket] * size : Math.floor(Date.parse(input.since) / size) * size;
  if (since >= until) return { ok: false, field: 'since', message: 'since must be before until.' };
  if ((until - since) / size > MAX_BUCKETS) {
    return {
      ok: false,
      field: 'since',
      message: `The range holds more than ${MAX_BUCKETS} ${input.bucket} buckets; choose a shorter range or a larger bucket.`,
    };
  }
  return { ok: true, since, until };
}

/** The report, with every bucket of the range present (zero where nothing arrived). */
export async function ingestionReport(
  storage: Storage,
  store: StoreRecord | null,
  input: IngestionQueryInput,
  range: { since: number; until: number },
): Promise<IngestionReportView> {
  const size = BUCKET_MS[input.bucket];
  const stats = await storage.ingestionReport({
    ...(store ? { storeId: store.id } : {}),
    bucket: input.bucket,
    since: new Date(range.since).toISOString(),
    until: new Date(range.until).toISOString(),
    top: TOP_LIST_LENGTH,
  });
  const names = await storage.displayNames({
    ...(store ? { storeId: store.id } : {}),
    verbIds: stats.topVerbs.map((row) => row.id),
    activityIds: stats.topActivities.map((row) => row.id),
  });
  const byStart = new Map(stats.series.map((point) => [Date.parse(point.start), point]));
  const series: IngestionReportView['series'] = [];
  for (let start = range.since; start < range.until; start += size) {
    const point = byStart.get(start);
    series.push({ start: new Date(start).toISOString(), accepted: point?.accepted ?? 0, rejected: point?.rejected ?? 0 });
  }
  return {
    bucket: input.bucket,
    since: new Date(range.since).toISOString(),
    until: new Date(range.until).toISOString(),
    series,
    totals: stats.totals,
    topVerbs: stats.topVerbs.map((row) => ({ ...row, name: preferredText(names.verbs[row.id]) })),
    topActivities: stats.topActivities.map((row) => ({ ...row, name: preferredText(names.activities[row.id]) })),
  };
}
