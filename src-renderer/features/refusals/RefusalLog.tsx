import { LiveBadge } from '../../ui/LiveBadge';
import { Badge, Button, Code, Group, Stack, Text, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo } from 'react';
import type { RefusalPageView } from '../../../src-server/admin/contract';
import { DataTable } from '../../ui/DataTable';
import { dateTime, relativeTime } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { useRefusalLog } from './queries';

type Refusal = RefusalPageView['refusals'][number];
const column = createColumnHelper<Refusal>();

/**
 * The log of requests refused before any statement of theirs was read: a Store's (`slug`) or the
 * service-wide one (`slug` null, requests that name no Store). Live: new refusals appear as they
 * are logged.
 */
export function RefusalLog({ slug }: { slug: string | null }) {
  const log = useRefusalLog(slug);
  const columns = useMemo(
    () => [
      column.accessor('lastAt', {
        header: 'When',
        cell: ({ row }) => (
          <Tooltip label={row.original.count > 1 ? `${dateTime(row.original.at)} to ${dateTime(row.original.lastAt)}` : dateTime(row.original.at)}>
            <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
              {relativeTime(row.original.lastAt)}
              {row.original.count > 1 && <Text span c="dimmed" size="sm">{` ×${row.original.count}`}</Text>}
            </Text>
          </Tooltip>
        ),
      }),
      column.accessor('status', {
        header: 'Answer',
        cell: (info) => (
          <Badge variant="light" color={info.getValue() >= 500 ? 'orange' : 'red'} style={{ flexShrink: 0 }}>
            {info.getValue()}
          </Badge>
        ),
      }),
      column.display({
        id: 'request',
        header: 'Request and reason',
        cell: ({ row }) => (
          <div>
            <Code style={{ wordBreak: 'break-all' }}>
              {row.original.method} {row.original.path}
            </Code>
            <Text size="sm" mt={4}>
              {row.original.reason}
            </Text>
          </div>
        ),
      }),
      column.display({
        id: 'who',
        header: 'Key and client',
        cell: ({ row }) => (
          <div>
            <Text size="xs" ff="monospace">
              {row.original.keyId ?? 'no key'}
            </Text>
            <Text size="xs" c="dimmed">
              {row.original.client}
              {row.original.userAgent ? ` · ${row.original.userAgent}` : ''}
            </Text>
          </div>
        ),
      }),
    ],
    [],
  );

  const refusals = log.loaded?.refusals ?? [];
  return (
    <Stack gap="sm" data-testid={slug === null ? 'service-refusals' : 'store-refusals'}>
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {slug === null
            ? 'Requests that named no Store (a wrong address, an unknown Store) and refused admin credentials.'
            : 'Requests refused before any statement was read: credentials, version header, content type, a body that is not JSON, limits, unknown paths.'}
        </Text>
        <LiveBadge state={log.live} />
      </Group>
      {log.error && <ErrorState title="The refused requests could not be loaded" error={log.error} onRetry={log.reload} />}
      {log.loading && <LoadingState label="Loading refused requests…" />}
      {log.loaded && refusals.length === 0 && (
        <EmptyState title="No refused requests">
          {slug === null
            ? 'Requests to an address that is no Store, or with a wrong admin token, would appear here.'
            : 'When content sends a wrong key or secret, no version header, a body that is not JSON, or more than the limits allow, each request appears here with the reason it was refused.'}
        </EmptyState>
      )}
      {refusals.length > 0 && (
        <>
          <DataTable caption={slug === null ? 'Refused requests of the service' : `Refused requests of ${slug}`} data={refusals} columns={columns} rowKey={(r) => String(r.id)} rowProps={(r) => ({ 'data-status': String(r.status) })} />
          {log.loadMoreError && <ErrorState title="The older refused requests could not be loaded" error={log.loadMoreError} onRetry={log.loadMore} />}
          {log.loaded?.next && (
            <Button variant="default" onClick={log.loadMore} loading={log.loadingMore} style={{ alignSelf: 'center' }}>
              Show older
            </Button>
          )}
        </>
      )}
    </Stack>
  );
}
