import { Alert, Drawer, Group, Stack, Text } from '@mantine/core';
import type { ExplorerPageView } from '../../../src-server/admin/contract';
import { dateTime } from '../../ui/format';
import { StatusBadge } from '../../ui/StatusBadge';
import { StatementJson } from './StatementJson';
import { statementSentence } from './statement-sentence';

type ExplorerRecord = ExplorerPageView['records'][number];

export function StatementDetail({ record, onClose }: { record: ExplorerRecord | null; onClose: () => void }) {
  return (
    <Drawer opened={record !== null} onClose={onClose} position="right" size="xl" title="Statement">
      {record && (
        <Stack>
          <Group gap="xs">
            <StatusBadge value={record.status} />
            {record.warnings && record.warnings.length > 0 && <StatusBadge value="warnings" />}
            <Text size="sm" c="dimmed">
              received {dateTime(record.receivedAt)} with key {record.keyId}
            </Text>
          </Group>
          <Text fw={500}>{statementSentence(record.statement)}</Text>
          {record.statementId && (
            <Text size="sm">
              Statement id <code>{record.statementId}</code>
            </Text>
          )}
          {record.error && (
            <Alert color="red" title="Why it was rejected" data-testid="rejection-reason">
              <Text size="sm">{record.error.message}</Text>
              {record.error.field && (
                <Text size="sm" mt={4}>
                  Field at fault: <code data-testid="rejection-field">{record.error.field}</code>
                </Text>
              )}
              <Text size="xs" c="dimmed" mt={4}>
                code {record.error.code}
                {record.error.statementIndex !== undefined ? ` · statement ${record.error.statementIndex} of its batch` : ''}
              </Text>
            </Alert>
          )}
          {record.warnings && record.warnings.length > 0 && (
            <Alert color="yellow" title="Accepted with warnings: what xAPI advises against" data-testid="statement-warnings">
              <Stack gap={4}>
                {record.warnings.map((warning) => (
                  <Text size="sm" key={`${warning.field} ${warning.message}`}>
                    <code>{warning.field}</code>: {warning.message}
                  </Text>
                ))}
              </Stack>
            </Alert>
          )}
          <StatementJson statement={record.statement} field={record.error?.field ?? record.warnings?.[0]?.field} />
        </Stack>
      )}
    </Drawer>
  );
}
