/** The ranges the Ingestion screen offers, and the bucket that suits each. */
export const RANGES = {
  '1h': { label: 'Last hour', ms: 3_600_000, bucket: 'minute' },
  '24h': { label: 'Last 24 hours', ms: 86_400_000, bucket: 'hour' },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, bucket: 'day' },
  '30d': { label: 'Last 30 days', ms: 30 * 86_400_000, bucket: 'day' },
} as const;
export type RangeKey = keyof typeof RANGES;

/** The range's start, rounded down to the minute so that a live refresh asks the same question. */
export function rangeSince(range: RangeKey, now: Date): string {
  const start = now.getTime() - RANGES[range].ms;
  return new Date(start - (start % 60_000)).toISOString();
}
