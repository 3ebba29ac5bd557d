import { Alert, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { CopyValueButton } from '../../ui/CopyField';
import { bytes, dateTime, relativeTime } from '../../ui/format';
import { ErrorState, LoadingState } from '../../ui/StateViews';
import { RefusalLog } from '../refusals/RefusalLog';
import { BackupCard } from './BackupCard';
import { CapacityCard } from './CapacityCard';
import { DesktopConnectionPanel } from './DesktopConnectionPanel';
import { useConnectionInfo, useServiceStatus } from './queries';

const KIND_LABEL = { web: 'Web console', local: 'Local service', remote: 'Remote deployment' } as const;

/**
 * What the console is connected to and how that service is doing. In the desktop app the local
 * service's controls and the saved connections follow; the web console offers signing out.
 */
export function ConnectionScreen({ onSignOut }: { onSignOut?: () => void }) {
  const info = useConnectionInfo();
  const status = useServiceStatus();
  const s = status.data;
  return (
    <Stack>
      <div>
        <Title order={2}>Connection</Title>
        <Text c="dimmed" size="sm">
          The deployment this console manages.
        </Text>
      </div>
      <Paper withBorder p="md">
        <Group justify="space-between">
          <Group gap="sm">
            <Badge variant="light">{info ? KIND_LABEL[info.kind] : '…'}</Badge>
            <Text fw={500}>{info?.label}</Text>
          </Group>
          {onSignOut && (
            <Button variant="default" onClick={onSignOut}>
              Sign out
            </Button>
          )}
        </Group>
        {info && (
          <Group gap={4} mt="xs">
            <Text size="sm" c="dimmed">
              URL
            </Text>
            <Text size="sm" ff="monospace">
              {info.url}
            </Text>
            <CopyValueButton label="Service URL" value={info.url} />
          </Group>
        )}
        {info?.kind === 'web' && (
          <Text size="sm" c="dimmed" mt="xs">
            This page is served by the service itself. You are signed in with its admin token for this browser tab only.
          </Text>
        )}
      </Paper>
      {status.error && <ErrorState title="The service did not answer" error={status.error} onRetry={status.reload} />}
      {status.loading && !s && <LoadingState label="Asking the service…" />}
      {s?.damage && (
        <Alert color="red" title="The database is damaged" role="alert">
          {s.damage}. Requests that reach the damaged part are answered 503. Stop the service, run <Code>npm run check-data</Code>, and restore the newest
          backup (README, Recovery).
        </Alert>
      )}
      {s && (
        <Paper withBorder p="md">
          <Group justify="space-between" mb="sm">
            <Title order={4}>Service</Title>
            <Badge color="teal" variant="dot">
              Running
            </Badge>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="md">
            <Fact label="Version" value={s.version} />
            <Fact label="Started" value={`${dateTime(s.startedAt)} (${relativeTime(s.startedAt)})`} />
            <Fact label="Listens on" value={s.listenUrl ?? '—'} />
            <Fact label="Listen address" value={s.host ?? '—'} />
            <Fact label="Port" value={s.port !== undefined ? String(s.port) : '—'} />
            <Fact label="Public URL" value={s.publicUrl ?? s.listenUrl ?? '—'} />
            <Fact label="Data directory" value={s.dataDir ?? '—'} />
            <Fact label="Database size" value={bytes(s.databaseBytes)} />
            <Fact label="Stores" value={String(s.stores)} />
            <Fact label="Statements" value={String(s.statements)} />
            <Fact label="Rejections" value={String(s.rejections)} />
          </SimpleGrid>
        </Paper>
      )}
      {s?.capacity && <CapacityCard capacity={s.capacity} />}
      {s && <BackupCard schedule={s.backups} />}
      {s && (
        <Paper withBorder p="md">
          <Title order={4} mb="sm">
            Refused requests of the service
          </Title>
          <RefusalLog slug={null} />
        </Paper>
      )}
      <DesktopConnectionPanel />
    </Stack>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="sm" style={{ wordBreak: 'break-all' }}>
        {value}
      </Text>
    </div>
  );
}
