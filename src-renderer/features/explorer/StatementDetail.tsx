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
          <StatementJson statement={record.statement} field={record.error?.field} />
        </Stack>
      )}
    </Drawer>
  );
}
