import { Box, Group, Text } from '@mantine/core';
import { useElementSize } from '@mantine/hooks';
import type { IngestionReportView } from '../../../src-server/admin/contract';
import { bucketLabel, chartLayout } from './chart-layout';

const HEIGHT = 220;
const AXIS = 36;
/** Room above the top grid line for its label. */
const TOP = 10;

/** Stacked bars per bucket: accepted (teal) and rejected (red). Plain SVG, themed by Mantine's CSS variables. */
export function IngestionChart({ report }: { report: IngestionReportView }) {
  const { ref, width } = useElementSize();
  const plotWidth = Math.max(0, width - AXIS);
  const layout = chartLayout(report.series, plotWidth, HEIGHT);
  const accepted = report.series.reduce((sum, p) => sum + p.accepted, 0);
  const rejected = report.series.reduce((sum, p) => sum + p.rejected, 0);
  const labelEvery = Math.max(1, Math.ceil(report.series.length / 8));
  return (
    <Box ref={ref}>
      <Group gap="md" mb="xs">
        <Legend color="var(--mantine-color-teal-6)" label="Accepted" />
        <Legend color="var(--mantine-color-red-6)" label="Rejected" />
      </Group>
      <svg
        width={width}
        height={HEIGHT + TOP + 24}
        role="img"
        aria-label={`Statements received per ${report.bucket}: ${accepted} accepted, ${rejected} rejected`}
        data-testid="ingestion-chart"
        data-accepted={accepted}
        data-rejected={rejected}
      >
        <g transform={`translate(0,${TOP})`}>
          {layout.ticks.map((tick) => {
            const y = HEIGHT - (tick / layout.max) * HEIGHT + 0.5;
            return (
              <g key={tick}>
                <line x1={AXIS} x2={width} y1={y} y2={y} stroke="var(--mantine-color-default-border)" />
                <text x={AXIS - 6} y={y + 4} textAnchor="end" fontSize={11} fill="var(--mantine-color-dimmed)">
                  {tick}
                </text>
              </g>
            );
          })}
          <g transform={`translate(${AXIS},0)`}>
            {layout.bars.map((bar, index) => (
              <g key={bar.start}>
                <title>{`${bucketLabel(bar.start, report.bucket)}: ${report.series[index]?.accepted ?? 0} accepted, ${report.series[index]?.rejected ?? 0} rejected`}</title>
                <rect x={bar.x} y={bar.acceptedY} width={bar.width} height={bar.acceptedHeight} fill="var(--mantine-color-teal-6)" />
                <rect x={bar.x} y={bar.rejectedY} width={bar.width} height={bar.rejectedHeight} fill="var(--mantine-color-red-6)" />
                {index % labelEvery === 0 && (
                  <text x={bar.x + bar.width / 2} y={HEIGHT + 16} textAnchor="middle" fontSize={11} fill="var(--mantine-color-dimmed)">
                    {bucketLabel(bar.start, report.bucket)}
                  </text>
                )}
              </g>
            ))}
          </g>
        </g>
      </svg>
    </Box>
  );
}

function Legend({ color, label }: { color: string; label: string }) {
  return (
    <Group gap={6}>
      <Box w={12} h={12} style={{ background: color, borderRadius: 2 }} />
      <Text size="sm">{label}</Text>
    </Group>
  );
}
