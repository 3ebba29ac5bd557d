import { Alert, Anchor, Button, Code, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { ApiKeyView, CreatedApiKeyView } from '../../../src-server/admin/contract';
import { routeHref } from '../../routes';
import { DataTable } from '../../ui/DataTable';
import { dateTime, relativeTime, timeLeft } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { StatusBadge } from '../../ui/StatusBadge';
import { useStores } from '../stores/queries';
import { StorePicker } from '../stores/StorePicker';
import { CopyField, CopyValueButton } from '../../ui/CopyField';
import { AuthoringGuideButton } from './AuthoringGuide';
import { CreateKeyModal, NewKeyModal, RevokeKeyModal, RotateKeyModal } from './KeyDialogs';
import { useApiKeys } from './queries';

const column = createColumnHelper<ApiKeyView>();

type Dialog =
  | { kind: 'rotate' | 'revoke'; key: ApiKeyView }
  | { kind: 'created'; created: CreatedApiKeyView; previous?: ApiKeyView }
  | null;

export function ApiKeysScreen({ store, onStoreChange }: { store: string | undefined; onStoreChange: (slug: string | undefined) => void }) {
  const stores = useStores();
  const selected = store ?? stores.data?.stores[0]?.slug;
  const selectedStore = stores.data?.stores.find((s) => s.slug === selected);
  const keys = useApiKeys(selectedStore ? selected : undefined);
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const columns = useMemo(
    () => [
      column.display({
        id: 'key',
        header: 'Key',
        cell: ({ row }) => (
          <div>
            <Text fw={500}>{row.original.name}</Text>
            <Group gap={4} wrap="nowrap">
              <Code data-key-id={row.original.id}>{row.original.id}</Code>
              <CopyValueButton label={`Key id of ${row.original.name}`} value={row.original.id} />
            </Group>
          </div>
        ),
      }),
      column.accessor('environment', { header: 'Environment', cell: (info) => <StatusBadge value={info.getValue()} /> }),
      column.accessor('scopes', { header: 'Scopes', cell: (info) => <Text size="sm">{info.getValue().join(', ')}</Text> }),
      column.accessor('lastUsedAt', {
        header: 'Last used',
        cell: (info) => {
          const value = info.getValue();
          return value ? <Tooltip label={dateTime(value)}><Text size="sm">{relativeTime(value)}</Text></Tooltip> : <Text size="sm" c="dimmed">never</Text>;
        },
      }),
      column.accessor('expiresAt', {
        header: 'Expires',
        cell: ({ row }) => {
          const key = row.original;
          if (key.revokedAt) return <Text size="sm" c="dimmed">revoked {relativeTime(key.revokedAt)}</Text>;
          if (!key.expiresAt) return <Text size="sm" c="dimmed">never</Text>;
          return (
            <Tooltip label={dateTime(key.expiresAt)}>
              <Text size="sm" c={key.replacedBy ? 'orange' : undefined}>
                {timeLeft(key.expiresAt)}
                {key.replacedBy ? ` (replaced by ${key.replacedBy})` : ''}
              </Text>
            </Tooltip>
          );
        },
      }),
      column.accessor('state', { header: 'State', cell: (info) => <StatusBadge value={info.getValue()} /> }),
      column.display({
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) =>
          row.original.state === 'revoked' ? null : (
            <Group gap="xs" wrap="nowrap">
              <Button size="xs" variant="light" onClick={() => setDialog({ kind: 'rotate', key: row.original })} aria-label={`Rotate ${row.original.name}`}>
                Rotate
              </Button>
              <Button size="xs" variant="light" color="red" onClick={() => setDialog({ kind: 'revoke', key: row.original })} aria-label={`Revoke ${row.original.name}`}>
                Revoke
              </Button>
            </Group>
          ),
      }),
    ],
    [],
  );

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>API Keys</Title>
          <Text c="dimmed" size="sm">
            Settings → API Keys. Each key belongs to one Store; content sends statements with it (Basic or Bearer).
          </Text>
        </div>
        {selectedStore && <Button onClick={() => setCreating(true)}>Create key</Button>}
      </Group>
      {stores.error && <ErrorState title="The Stores could not be loaded" error={stores.error} onRetry={stores.reload} />}
      {stores.loading && !stores.data && <LoadingState label="Loading Stores…" />}
      {stores.data && stores.data.stores.length === 0 && (
        <EmptyState title="Create a Store first" action={<Anchor href={routeHref({ screen: 'stores' })}>Go to Stores</Anchor>}>
          API keys belong to a Store. Create a test Store, then come back here to issue its first key.
        </EmptyState>
      )}
      {stores.data && stores.data.stores.length > 0 && <StorePicker stores={stores.data.stores} value={selected} onChange={onStoreChange} />}
      {store && stores.data && !selectedStore && <Alert color="orange">There is no Store “{store}”. Choose another one.</Alert>}
      {notice && (
        <Alert color="teal" withCloseButton onClose={() => setNotice(null)} role="status">
          {notice}
        </Alert>
      )}
      {selectedStore && (
        <Paper withBorder p="md" data-testid="connect-card">
          <Group justify="space-between" align="flex-start" mb="xs">
            <div>
              <Title order={4}>Connect your content</Title>
              <Text size="sm" c="dimmed">
                An authoring tool asks for three things: the endpoint below, a key id (copy it from its row) and that key's secret (shown once, when
                the key is created or rotated; lost it? Rotate the key).
              </Text>
            </div>
            <AuthoringGuideButton />
          </Group>
          <CopyField label="Endpoint" value={selectedStore.endpoint} />
        </Paper>
      )}
      {keys.error && <ErrorState title="The keys could not be loaded" error={keys.error} onRetry={keys.reload} />}
      {keys.loading && <LoadingState label="Loading keys…" />}
      {selectedStore && keys.data && keys.data.keys.length === 0 && (
        <EmptyState title="No API keys yet" action={<Button onClick={() => setCreating(true)}>Create the first key</Button>}>
          Content needs a key to send statements to {selectedStore.name}. Create one, copy its secret, and paste the endpoint, key and
          secret into your authoring tool.
        </EmptyState>
      )}
      {selectedStore && keys.data && keys.data.keys.length > 0 && (
        <DataTable caption={`API keys of ${selectedStore.slug}`} data={keys.data.keys} columns={columns} rowKey={(key) => key.id} rowProps={(key) => ({ 'data-key': key.id })} />
      )}
      {selectedStore && (
        <CreateKeyModal
          slug={selectedStore.slug}
          opened={creating}
          onClose={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setDialog({ kind: 'created', created });
            keys.reload();
          }}
        />
      )}
      {selectedStore && dialog?.kind === 'created' && (
        <NewKeyModal created={dialog.created} endpoint={selectedStore.endpoint} {...(dialog.previous ? { previous: dialog.previous } : {})} onClose={() => setDialog(null)} />
      )}
      {selectedStore && dialog?.kind === 'rotate' && (
        <RotateKeyModal
          slug={selectedStore.slug}
          apiKey={dialog.key}
          onClose={() => setDialog(null)}
          onRotated={(replacement, previous) => {
            setDialog({ kind: 'created', created: replacement, previous });
            keys.reload();
          }}
        />
      )}
      {selectedStore && dialog?.kind === 'revoke' && (
        <RevokeKeyModal
          slug={selectedStore.slug}
          apiKey={dialog.key}
          onClose={() => setDialog(null)}
          onRevoked={() => {
            setDialog(null);
            setNotice(`${dialog.key.id} is revoked: requests with it are refused.`);
            keys.reload();
          }}
        />
      )}
    </Stack>
  );
}
