import { Badge, Button, Code, Group, Select, Stack, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { AUDIT_ACTIONS, type AuditEntryView } from '../../../src-server/admin/contract';
import { DataTable } from '../../ui/DataTable';
import { RelativeTime } from '../../ui/RelativeTime';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { useAuditPage } from './queries';

const column = createColumnHelper<AuditEntryView>();

/** An entry's detail in a line: its fields as `name: value`. */
function detailText(detail: AuditEntryView['detail']): string {
  if (!detail) return '';
  return Object.entries(detail)
    .map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

/**
 * The audit log: every admin action (Stores, keys, exports, backups…) with when, who, what and its
 * outcome, refused ones too, newest first. Asked again every few seconds while shown.
 */
export function AuditScreen() {
  const [store, setStore] = useState('');
  const [action, setAction] = useState<string | null>(null);
  const filters = useMemo(() => ({ ...(store.trim() ? { store: store.trim() } : {}), ...(action ? { action } : {}) }), [store, action]);
  // Cursors of the pages before the current one, kept with the filters they belong to.
  const filtersKey = JSON.stringify(filters);
  const [paging, setPaging] = useState<{ key: string; cursors: string[] }>({ key: filtersKey, cursors: [] });
  const cursors = paging.key === filtersKey ? paging.cursors : [];
  const setCursors = (next: string[]) => setPaging({ key: filtersKey, cursors: next });
  const page = useAuditPage(filters, cursors[cursors.length - 1]);

  const columns = useMemo(
    () => [
      column.accessor('at', {
        header: 'When',
        cell: (info) => <RelativeTime iso={info.getValue()} />,
      }),
      column.accessor('action', { header: 'Action', cell: (info) => <Code>{info.getValue()}</Code> }),
      column.accessor('outcome', {
        header: 'Outcome',
        cell: ({ row }) => (
          <Tooltip label={row.original.errorCode ?? 'Done'} disabled={row.original.outcome === 'succeeded'}>
            <Badge variant="light" color={row.original.outcome === 'succeeded' ? 'teal' : 'red'}>
              {row.original.outcome === 'succeeded' ? 'succeeded' : `failed: ${row.original.errorCode ?? ''}`}
            </Badge>
          </Tooltip>
        ),
      }),
      column.display({
        id: 'what',
        header: 'Store and target',
        cell: ({ row }) => (
          <div>
            <Text size="sm">{row.original.store ?? '—'}</Text>
            {row.original.target && (
              <Text size="xs" ff="monospace" c="dimmed">
                {row.original.target}
              </Text>
            )}
            {row.original.detail && (
              <Text size="xs" c="dimmed" lineClamp={2}>
                {detailText(row.original.detail)}
              </Text>
            )}
          </div>
        ),
      }),
      column.display({
        id: 'who',
        header: 'Who',
        cell: ({ row }) => (
          <div>
            <Text size="sm">{row.original.actor}</Text>
            {row.original.actorDetail && (
              <Text size="xs" c="dimmed">
                {row.original.actorDetail}
              </Text>
            )}
          </div>
        ),
      }),
    ],
    [],
  );

  const entries = page.data?.entries ?? [];
  return (
    <Stack>
      <div>
        <Title order={2}>Audit log</Title>
        <Text c="dimmed" size="sm">
          Every admin action — Stores, API keys, exports, backups — with when, who and the outcome, refused ones too. Kept for a year.
        </Text>
      </div>
      <Group align="flex-end">
        <TextInput label="Store" placeholder="its slug" value={store} onChange={(event) => setStore(event.currentTarget.value)} />
        <Select label="Action" placeholder="every action" data={[...AUDIT_ACTIONS]} value={action} onChange={setAction} clearable searchable />
      </Group>
      {page.error && <ErrorState title="The audit log could not be loaded" error={page.error} onRetry={page.reload} />}
      {page.loading && !page.data && <LoadingState label="Loading the audit log…" />}
      {page.data && entries.length === 0 && <EmptyState title="Nothing recorded">Admin actions appear here as they are done.</EmptyState>}
      {entries.length > 0 && (
        <>
          <DataTable
            caption="Audit log"
            data={entries}
            columns={columns}
            rowKey={(entry) => String(entry.id)}
            rowProps={(entry) => ({ 'data-action': entry.action, 'data-outcome': entry.outcome })}
          />
          <Group justify="space-between">
            <Button variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              ← Newer
            </Button>
            <Button variant="default" disabled={!page.data?.next} onClick={() => page.data?.next && setCursors([...cursors, page.data.next])}>
              Older →
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}
