import { LiveBadge } from '../../ui/LiveBadge';
import { Anchor, Group, Paper, Select, SimpleGrid, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { useState } from 'react';
import type { IngestionQueryInput } from '../../../src-server/admin/contract';
import { routeHref } from '../../routes';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { useStores } from '../stores/queries';
import { StorePicker } from '../stores/StorePicker';
import { IngestionChart } from './IngestionChart';
import { RANGES, rangeSince, type RangeKey } from './ingestion-range';
import { useIngestion } from './queries';
import { LabeledSegmentedControl } from '../../ui/LabeledSegmentedControl';

type Bucket = 'minute' | 'hour' | 'day';

export function IngestionScreen() {
  const stores = useStores();
  const [store, setStore] = useState<string | undefined>();
  const [range, setRange] = useState<RangeKey>('24h');
  const [bucket, setBucket] = useState<Bucket>('hour');
  // The range's start is fixed when the range is chosen, so that live refreshes keep one window.
  const [since, setSince] = useState(() => rangeSince('24h', new Date()));
  const input: IngestionQueryInput = { bucket, since, ...(store ? { store } : {}) };
  const report = useIngestion(input);

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Ingestion</Title>
          <Text c="dimmed" size="sm">
            Statements received, accepted and rejected, per Store or overall. Updates as statements arrive.
          </Text>
        </div>
        <LiveBadge state={report.live} />
      </Group>
      <Group align="flex-end">
        {stores.data && <StorePicker stores={stores.data.stores} value={store} onChange={setStore} allLabel="All Stores" />}
        <Select
          label="Range"
          data={Object.entries(RANGES).map(([value, r]) => ({ value, label: r.label }))}
          value={range}
          allowDeselect={false}
          onChange={(value) => {
            const next = (value ?? '24h') as RangeKey;
            setRange(next);
            setBucket(RANGES[next].bucket);
            setSince(rangeSince(next, new Date()));
          }}
          w={200}
        />
        <LabeledSegmentedControl<Bucket>
          id="bucket-label"
          label="Per"
          value={bucket}
          onChange={setBucket}
          data={[
            { value: 'minute', label: 'Minute' },
            { value: 'hour', label: 'Hour' },
            { value: 'day', label: 'Day' },
          ]}
        />
      </Group>
      {report.error && <ErrorState title="The ingestion report could not be loaded" error={report.error} onRetry={report.reload} />}
      {report.loading && !report.data && <LoadingState label="Loading the report…" />}
      {report.data && (
        <>
          <SimpleGrid cols={{ base: 1, sm: 4 }}>
            <Total label="Received" value={report.data.totals.accepted + report.data.totals.voided + report.data.totals.rejected} />
            <Total label="Accepted" value={report.data.totals.accepted} color="teal" />
            <Total label="Voided" value={report.data.totals.voided} />
            <Total label="Rejected" value={report.data.totals.rejected} color="red" />
          </SimpleGrid>
          <Paper withBorder p="md">
            {report.data.series.every((p) => p.accepted + p.rejected === 0) ? (
              <EmptyState title="Nothing received in this range" action={<Anchor href={routeHref({ screen: 'stores' })}>Send a test statement from the Stores screen</Anchor>}>
                When content sends statements, they are counted here per {bucket}.
              </EmptyState>
            ) : null}
            <IngestionChart report={report.data} />
          </Paper>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <TopList title="Top verbs" rows={report.data.topVerbs} />
            <TopList title="Top activities" rows={report.data.topActivities} />
          </SimpleGrid>
        </>
      )}
    </Stack>
  );
}

function Total({ label, value, color }: { label: string; value: number; color?: string }) {
  return (
    <Paper withBorder p="md" data-total={label.toLowerCase()}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} c={color}>
        {value}
      </Text>
    </Paper>
  );
}

function TopList({ title, rows }: { title: string; rows: { id: string; count: number; name: string | null }[] }) {
  return (
    <Paper withBorder p="md">
      <Title order={4} mb="xs">
        {title}
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed" size="sm">
          None in this range.
        </Text>
      ) : (
        <Table aria-label={title}>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.id}>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  {row.name ? (
                    // The name people gave it; the IRI, what the statements carry, on hover.
                    <Tooltip label={row.id} withArrow>
                      <Text size="sm" span data-iri={row.id}>
                        {row.name}
                      </Text>
                    </Tooltip>
                  ) : (
                    <Text size="sm" span ff="monospace" data-iri={row.id}>
                      {row.id}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">{row.count}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
