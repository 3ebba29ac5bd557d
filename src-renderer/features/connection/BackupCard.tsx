import { Button, Code, Group, Paper, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { ErrorState } from '../../ui/StateViews';

/** "Download backup": the whole database as an SQLite file, taken from a consistent point. */
export function BackupCard() {
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
