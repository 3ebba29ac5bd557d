import { Alert, Button, Code, Group, Menu, Stack, Text, Title, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { StoreSummaryView } from '../../../src-server/admin/contract';
import { routeHref } from '../../routes';
import { CopyValueButton } from '../../ui/CopyField';
import { DataTable } from '../../ui/DataTable';
import { relativeTime } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { StatusBadge } from '../../ui/StatusBadge';
import { useSendTestStatement } from './mutations';
import { useStores } from './queries';
import { CreateStoreModal, DestructiveStoreModal, RenameStoreModal } from './StoreDialogs';
import { EraseLearnerModal } from './EraseLearnerDialog';
import { RetentionModal } from './RetentionDialog';

import { ImportDialog } from '../imports/ImportDialog';

type Dialog = { kind: 'rename' | 'retention' | 'erase' | 'import' | 'empty' | 'delete'; store: StoreSummaryView } | null;

const column = createColumnHelper<StoreSummaryView>();

export function StoresScreen() {
  const stores = useStores();
  const sendTest = useSendTestStatement();
  const [creating, setCreating] = useState(false);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [notice, setNotice] = useState<{ color: string; text: string } | null>(null);

  const columns = useMemo(
    () => [
      column.display({
        id: 'store',
        header: 'Store',
        cell: ({ row }) => (
          <div style={{ minWidth: 140 }}>
            <Text fw={500}>{row.original.name}</Text>
            <Text size="xs" c="dimmed">
              {row.original.slug}
            </Text>
          </div>
        ),
      }),
      column.accessor('environment', { header: 'Environment', cell: (info) => <StatusBadge value={info.getValue()} /> }),
      column.display({
        id: 'statements',
        header: 'Statements',
        cell: ({ row }) => (
          <div data-testid={`count-${row.original.slug}`}>
            <Text>{row.original.statementCount}</Text>
            {row.original.rejectedCount > 0 && (
              <Text size="xs" c="red">
                {row.original.rejectedCount} rejected
              </Text>
            )}
          </div>
        ),
      }),
      column.accessor('lastActivityAt', {
        header: 'Last activity',
        cell: (info) => {
          const value = info.getValue();
          return value ? <Tooltip label={value}><Text size="sm">{relativeTime(value)}</Text></Tooltip> : <Text size="sm" c="dimmed">none yet</Text>;
        },
      }),
      column.accessor('endpoint', {
        header: 'xAPI endpoint',
        cell: (info) => (
          <Group gap={4} wrap="nowrap">
            <Code style={{ wordBreak: 'break-all' }}>{info.getValue()}</Code>
            <CopyValueButton label={`Endpoint of ${info.row.original.slug}`} value={info.getValue()} />
          </Group>
        ),
      }),
      column.display({
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => {
          const store = row.original;
          return (
            <Group gap={6} maw={300}>
              <Button
                size="xs"
                variant="light"
                onClick={() => {
                  sendTest
                    .run({ slug: store.slug })
                    .then((result) => setNotice({ color: 'teal', text: `Test statement ${result.statementId} sent to ${store.slug}. See it in the Statement Explorer.` }))
                    .catch((error: Error) => setNotice({ color: 'red', text: `The test statement to ${store.slug} failed: ${error.message}` }));
                }}
              >
                Send a test statement
              </Button>
              <Button size="xs" variant="subtle" component="a" href={routeHref({ screen: 'keys', store: store.slug })} aria-label={`API keys of ${store.slug}`}>
                Keys
              </Button>
              <Button size="xs" variant="subtle" component="a" href={routeHref({ screen: 'explorer', store: store.slug })} aria-label={`Statements of ${store.slug}`}>
                Explorer
              </Button>
              <Menu position="bottom-end" withinPortal>
                <Menu.Target>
                  <Button size="xs" variant="subtle" aria-label={`More actions for ${store.slug}`}>
                    More…
                  </Button>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Item onClick={() => setDialog({ kind: 'rename', store })}>Rename</Menu.Item>
                  <Menu.Item onClick={() => setDialog({ kind: 'retention', store })}>Retention…</Menu.Item>
                  <Menu.Item color="red" onClick={() => setDialog({ kind: 'erase', store })}>
                    Forget a learner…
                  </Menu.Item>
                  <Menu.Item onClick={() => setDialog({ kind: 'import', store })}>Import statements…</Menu.Item>
                  <Menu.Item onClick={() => setDialog({ kind: 'empty', store })}>Empty…</Menu.Item>
                  <Menu.Item color="red" onClick={() => setDialog({ kind: 'delete', store })}>
                    Delete…
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            </Group>
          );
        },
      }),
    ],
    [sendTest],
  );

  const done = (text: string) => {
    setDialog(null);
    setNotice({ color: 'teal', text });
    stores.reload();
  };

  return (
    <Stack>
      <Group justify="space-between">
        <div>
          <Title order={2}>Stores</Title>
          <Text c="dimmed" size="sm">
            A Store is where statements land. Point content at a Store's endpoint with one of its API keys.
          </Text>
        </div>
        <Button onClick={() => setCreating(true)}>Create Store</Button>
      </Group>
      {notice && (
        <Alert color={notice.color} withCloseButton onClose={() => setNotice(null)} role="status">
          {notice.text}
        </Alert>
      )}
      {stores.error && <ErrorState title="The Stores could not be loaded" error={stores.error} onRetry={stores.reload} />}
      {stores.loading && !stores.data && <LoadingState label="Loading Stores…" />}
      {stores.data && stores.data.stores.length === 0 && (
        <EmptyState title="No Stores yet" action={<Button onClick={() => setCreating(true)}>Create your first Store</Button>}>
          Create a test Store for the course you are building, then create an API key for it in Settings → API Keys and paste
          the endpoint, key and secret into your authoring tool.
        </EmptyState>
      )}
      {stores.data && stores.data.stores.length > 0 && (
        <DataTable caption="Stores" data={stores.data.stores} columns={columns} rowKey={(store) => store.slug} rowProps={(store) => ({ 'data-store': store.slug })} />
      )}
      <CreateStoreModal
        opened={creating}
        onClose={() => setCreating(false)}
        onCreated={() => {
          setCreating(false);
          setNotice({ color: 'teal', text: 'Store created. Next: create an API key for it.' });
          stores.reload();
        }}
      />
      {dialog?.kind === 'import' && <ImportDialog store={dialog.store} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'rename' && <RenameStoreModal store={dialog.store} onClose={() => setDialog(null)} onDone={() => done('Store renamed.')} />}
      {dialog?.kind === 'retention' && <RetentionModal store={dialog.store} onClose={() => setDialog(null)} onDone={() => done(`Retention of ${dialog.store.slug} saved.`)} />}
      {dialog?.kind === 'erase' && (
        <EraseLearnerModal
          store={dialog.store}
          onClose={() => setDialog(null)}
          onDone={(counts) => done(`Learner erased from ${dialog.store.slug}: ${counts.statements} statements, ${counts.stateDocuments + counts.agentProfileDocuments} documents, ${counts.rejections} rejected entries.`)}
        />
      )}
      {(dialog?.kind === 'empty' || dialog?.kind === 'delete') && (
        <DestructiveStoreModal
          store={dialog.store}
          action={dialog.kind}
          onClose={() => setDialog(null)}
          onDone={() => done(dialog.kind === 'empty' ? `${dialog.store.slug} emptied.` : `${dialog.store.slug} deleted.`)}
        />
      )}
    </Stack>
  );
}
