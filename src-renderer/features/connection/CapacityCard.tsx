import { Alert, Badge, Group, Paper, Progress, Text, Title } from '@mantine/core';
import { capacityView, type Capacity } from './capacity';

const STATE_LABEL = { ok: 'OK', warning: 'Filling up', full: 'Full' } as const;

/** How full the database is, and what to do when it fills up. */
export function CapacityCard({ capacity }: { capacity: Capacity }) {
  const view = capacityView(capacity);
  return (
    <Paper withBorder p="md" data-testid="capacity-card">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Database capacity</Title>
        <Badge color={view.color} variant="light">
          {STATE_LABEL[capacity.state]}
        </Badge>
      </Group>
      <Text size="sm" mb={6}>
        {view.summary} used
      </Text>
      <Progress value={view.percent} color={view.color} size="lg" aria-label={`Database capacity: ${view.summary} used`} />
      {view.note && (
        <Alert color={view.note.color} title={view.note.title} mt="md" role={capacity.state === 'full' ? 'alert' : 'status'}>
          <Text size="sm">{view.note.text}</Text>
        </Alert>
      )}
    </Paper>
  );
}
