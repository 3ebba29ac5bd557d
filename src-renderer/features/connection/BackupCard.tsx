import { Alert, Button, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { BackupScheduleView } from '../../../src-server/admin/contract';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { bytes, dateTime, duration, relativeTime } from '../../ui/format';
import { ErrorState } from '../../ui/StateViews';

/**
 * The scheduled backups (last, next, a failure being retried) and "Download backup": the whole
 * database as an SQLite file, taken from a consistent point.
 */
export function BackupCard({ schedule }: { schedule: BackupScheduleView | undefined }) {
  const client = useAdminClient();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<string>();
  const [error, setError] = useState<AdminError>();

  async function download() {
    setBusy(true);
    setError(undefined);
    setSaved(undefined);
    try {
      const result = await client.downloadBackup();
      if (result.saved) setSaved(result.name);
    } catch (caught) {
      setError(toAdminError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Paper withBorder p="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div>
          <Title order={4}>Backup</Title>
          <Text size="sm" c="dimmed">
            The whole database as one SQLite file: every Store, key and statement. Keep it somewhere safe; <Code>npm run restore</Code> puts it back.
          </Text>
        </div>
        <Button onClick={() => void download()} loading={busy} variant="light" style={{ flexShrink: 0 }}>
          Download backup
        </Button>
      </Group>
      <ScheduledBackups schedule={schedule} />
      {saved && (
        <Text size="sm" c="teal" mt="sm" role="status">
          Backup saved: {saved}
        </Text>
      )}
      {error && (
        <div style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
          <ErrorState title="The backup was not taken" error={error} onRetry={() => void download()} />
        </div>
      )}
    </Paper>
  );
}

function ScheduledBackups({ schedule }: { schedule: BackupScheduleView | undefined }) {
  if (!schedule) {
    return (
      <Text size="sm" mt="sm">
        Scheduled backups are off. Start the service with <Code>--backup-interval 24h</Code> to have them taken by themselves.
      </Text>
    );
  }
  const { last, next, failure } = schedule;
  return (
    <Stack gap={4} mt="sm" data-testid="scheduled-backups">
      <Text size="sm">
        Every {duration(schedule.intervalMs)} to <Code>{schedule.dir}</Code>, keeping the newest {schedule.keep}.
      </Text>
      <Text size="sm">
        Last backup:{' '}
        {last
          ? `${dateTime(last.at)} (${relativeTime(last.at)}), ${bytes(last.bytes)}${last.statements === null ? '' : `, ${last.statements.toLocaleString('en')} statements`}`
          : 'none yet'}
      </Text>
      {schedule.running ? (
        <Text size="sm">A backup is being written now.</Text>
      ) : (
        next && <Text size="sm">Next backup: {dateTime(next)} ({relativeTime(next)})</Text>
      )}
      {failure && (
        <Alert color="red" title={failure.attempts > 1 ? `The last ${failure.attempts} backups failed` : 'The last backup failed'} mt="xs" role="alert">
          {failure.message}
          {next ? ` It is tried again ${relativeTime(next)}.` : ''}
        </Alert>
      )}
    </Stack>
  );
}
