/** The median of measured figures (the mean of the middle two for an even count): what alternating rounds report. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('the median of no figures');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
