/** Latency percentiles and the summary block every suite prints. */
export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return 0;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[index]!;
}

export interface SummaryLine {
  label: string;
  value: string | number;
  /** false marks a figure that fails the suite; undefined is informational. */
  ok?: boolean;
}

/** The block a suite ends with: one figure a line, a mark on each checked one, the verdict last. */
export function formatSummary(title: string, lines: SummaryLine[]): string {
  const width = Math.max(...lines.map((line) => line.label.length));
  const body = lines.map((line) => {
    const mark = line.ok === undefined ? '  ' : line.ok ? 'ok' : '!!';
    return `  ${mark} ${line.label.padEnd(width)}  ${line.value}`;
  });
  const passed = lines.every((line) => line.ok !== false);
  return [`== ${title} ==`, ...body, `  => ${passed ? 'PASS' : 'FAIL'}`].join('\n');
}

