import { Alert, Badge, Button, Group, Paper, Select, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { WAIVER_REASONS, type AttemptView, type PackageView, type WaiverInput } from '../../../src-server/admin/contract';

type WaiverReason = WaiverInput['reason'];
import { useWaive } from './queries';

type Outcome = AttemptView['outcome'];

function outcomeText(outcome: Outcome | undefined): string {
  if (!outcome) return 'not launched';
  const parts = [
    outcome.completion === null ? null : outcome.completion ? 'completed' : 'not completed',
    outcome.success === null ? null : outcome.success ? 'passed' : 'failed',
    outcome.score?.scaled !== undefined ? `${Math.round(outcome.score.scaled * 100)}%` : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(', ') : 'nothing reported yet';
}

/**
 * A cmi5 attempt's AUs with what each reported, and the LMS's waiver: an administrator marks an
 * AU as met by other means (tested out, an equivalent activity), as an LMS would.
 */
export function AttemptUnits({ slug, view, pkg, onChanged }: { slug: string; view: AttemptView; pkg: PackageView; onChanged: () => void }) {
  const waive = useWaive();
  const [reason, setReason] = useState<WaiverReason>('Tested Out');
  const units = new Map(view.units.map((unit) => [unit.unitId, unit]));

  return (
    <Paper withBorder p="md" radius="md" data-testid="units">
      <Group justify="space-between" mb="sm">
        <Title order={4}>Assignable units</Title>
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Waive with the reason
          </Text>
          <Select
            size="xs"
            aria-label="Waiver reason"
            data={[...WAIVER_REASONS]}
            value={reason}
            onChange={(value) => value !== null && setReason(value as WaiverReason)}
            allowDeselect={false}
            w={220}
          />
        </Group>
      </Group>
      {waive.error && (
        <Alert color="red" role="alert" mb="sm">
          {waive.error.message}
        </Alert>
      )}
      <Table verticalSpacing="xs" aria-label="Assignable units">
        <Table.Tbody>
          {pkg.units.map((unit) => {
            const reported = units.get(unit.id);
            return (
              <Table.Tr key={unit.id} data-unit={unit.id}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {unit.title}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" c="dimmed">
                    {outcomeText(reported?.outcome)}
                  </Text>
                </Table.Td>
                <Table.Td align="right">
                  {reported?.waived ? (
                    <Badge color="violet" variant="light">
                      waived
                    </Badge>
                  ) : (
                    <Button
                      size="xs"
                      variant="subtle"
                      loading={waive.pending}
                      onClick={() => void waive.run({ slug, registration: view.registration, unit: unit.id, reason }).then(onChanged, () => undefined)}
                    >
                      Waive
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
