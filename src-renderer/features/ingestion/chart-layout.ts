/** Geometry of the ingestion chart (stacked bars: accepted below, rejected above), kept pure to test it. */
export interface SeriesPoint {
  start: string;
  accepted: number;
  rejected: number;
}

interface Bar {
  start: string;
  x: number;
  width: number;
  /** Accepted part: from `acceptedY` down to the baseline. */
  acceptedY: number;
  acceptedHeight: number;
  rejectedY: number;
  rejectedHeight: number;
  total: number;
}

export interface ChartLayout {
  bars: Bar[];
  /** The value of the top grid line (a round number ≥ the largest bar). */
  max: number;
  ticks: number[];
}

/** A round axis maximum: 1, 2, 5 × 10ⁿ at or above `value` (5 when there is nothing yet). */
export function niceMax(value: number): number {
  if (value <= 0) return 5;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

export function chartLayout(series: SeriesPoint[], width: number, height: number): ChartLayout {
  const max = niceMax(Math.max(0, ...series.map((p) => p.accepted + p.rejected)));
  const slot = series.length > 0 ? width / series.length : width;
  const barWidth = Math.max(1, slot * 0.7);
  const scale = (n: number) => (n / max) * height;
  const bars = series.map((point, index) => {
    const acceptedHeight = scale(point.accepted);
    const rejectedHeight = scale(point.rejected);
    return {
      start: point.start,
      x: index * slot + (slot - barWidth) / 2,
      width: barWidth,
      acceptedY: height - acceptedHeight,
      acceptedHeight,
      rejectedY: height - acceptedHeight - rejectedHeight,
      rejectedHeight,
      total: point.accepted + point.rejected,
    };
  });
  return { bars, max, ticks: [0, max / 2, max] };
}

/** A bucket's label on the axis: "14:05" for minutes, "14:00" for hours, "21 Nov" for days. */
export function bucketLabel(start: string, bucket: 'minute' | 'hour' | 'day'): string {
  const date = new Date(start);
  if (bucket === 'day') return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
  return date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
}
