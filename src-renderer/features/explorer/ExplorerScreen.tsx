import { LiveBadge } from '../../ui/LiveBadge';
import { Anchor, Button, Group, Paper, SegmentedControl, SimpleGrid, Stack, Switch, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import type { ExplorerPageView } from '../../../src-server/admin/contract';
import { routeHref } from '../../routes';
import { DataTable } from '../../ui/DataTable';
import { dateTime, localInputToIso, relativeTime } from '../../ui/format';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { StatusBadge } from '../../ui/StatusBadge';
import { useStores } from '../stores/queries';
import { StorePicker } from '../stores/StorePicker';
import { useExplorerPage, type ExplorerFilters } from './queries';
import { StatementDetail } from './StatementDetail';
import { statementSentence } from './statement-sentence';
import { LabeledSegmentedControl } from '../../ui/LabeledSegmentedControl';
import { RefusalLog } from '../refusals/RefusalLog';

type ExplorerRecord = ExplorerPageView['records'][number];
type StatusChoice = 'all' | 'accepted' | 'voided' | 'rejected';

const column = createColumnHelper<ExplorerRecord>();

interface Draft {
  warned: boolean;
  agent: string;
  activity: string;
  verb: string;
  registration: string;
  status: StatusChoice;
  since: string;
  until: string;
}
const EMPTY_DRAFT: Draft = { warned: false, agent: '', activity: '', verb: '', registration: '', status: 'all', since: '', until: '' };

function toFilters(draft: Draft): ExplorerFilters {
  const filters: ExplorerFilters = {};
  if (draft.agent.trim()) filters.agent = draft.agent.trim();
  if (draft.activity.trim()) filters.activity = draft.activity.trim();
  if (draft.verb.trim()) filters.verb = draft.verb.trim();
  if (draft.registration.trim()) filters.registration = draft.registration.trim();
  if (draft.status !== 'all') filters.status = draft.status;
  if (draft.warned) filters.warned = 'true';
  const since = localInputToIso(draft.since);
  const until = localInputToIso(draft.until);
  if (since) filters.since = since;
  if (until) filters.until = until;
  return filters;
}

export function ExplorerScreen({ store, onStoreChange }: { store: string | undefined; onStoreChange: (slug: string | undefined) => void }) {
  const stores = useStores();
  const selected = store ?? stores.data?.stores[0]?.slug;
  const selectedStore = stores.data?.stores.find((s) => s.slug === selected);
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [filters, setFilters] = useState<ExplorerFilters>({});
  // Cursors of the pages before the current one: "Newer" pops, "Older" pushes.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const page = useExplorerPage(selectedStore?.slug, filters, cursor);
  const [open, setOpen] = useState<ExplorerRecord | null>(null);
  // Statements (accepted, voided, rejected), or the requests refused before any statement was read.
  const [view, setView] = useState<'statements' | 'refused'>('statements');

  const columns = useMemo(
    () => [
      column.accessor('receivedAt', {
        header: 'Received',
        cell: (info) => (
          <Tooltip label={dateTime(info.getValue())}>
            <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
              {relativeTime(info.getValue())}
            </Text>
          </Tooltip>
        ),
      }),
      column.accessor('status', { header: 'Status', cell: (info) => <StatusBadge value={info.getValue()} /> }),
      column.display({
        id: 'sentence',
        header: 'Statement',
        cell: ({ row }) => (
          <div>
            <Anchor component="button" type="button" ta="left" onClick={() => setOpen(row.original)} data-testid="statement-open">
              {statementSentence(row.original.statement)}
            </Anchor>
            {row.original.warnings && row.original.warnings.length > 0 && (
              <Text size="xs" c="yellow.8" lineClamp={1} data-testid="warning-line">
                {row.original.warnings.length === 1 ? '1 warning' : `${row.original.warnings.length} warnings`}: {row.original.warnings[0]!.field}: {row.original.warnings[0]!.message}
              </Text>
            )}
            {row.original.error && (
              <Text size="xs" c="red" lineClamp={1}>
                {row.original.error.field && !row.original.error.message.includes(row.original.error.field) ? `${row.original.error.field}: ` : ''}
                {row.original.error.message}
              </Text>
            )}
          </div>
        ),
      }),
    ],
    [],
  );

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(toFilters(draft));
    setCursors([]);
  };
  const clear = () => {
    setDraft(EMPTY_DRAFT);
    setFilters({});
    setCursors([]);
  };
  const filtered = Object.keys(filters).length > 0;

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Statement Explorer</Title>
          <Text c="dimmed" size="sm">
            Every statement a Store received — accepted, voided and rejected — newest first, with the JSON as received.
          </Text>
        </div>
        {selectedStore && view === 'statements' && (
          <LiveBadge state={page.live} paused={cursor ? 'Paused on an older page' : undefined} />
        )}
      </Group>
      {stores.error && <ErrorState title="The Stores could not be loaded" error={stores.error} onRetry={stores.reload} />}
      {stores.loading && !stores.data && <LoadingState label="Loading Stores…" />}
      {stores.data && stores.data.stores.length === 0 && (
        <EmptyState title="No Stores yet" action={<Anchor href={routeHref({ screen: 'stores' })}>Go to Stores</Anchor>}>
          Statements arrive in a Store. Create one, give your content an API key, and its statements will show up here as they arrive.
        </EmptyState>
      )}
      {stores.data && stores.data.stores.length > 0 && (
        <StorePicker
          stores={stores.data.stores}
          value={selected}
          onChange={(slug) => {
            setCursors([]);
            onStoreChange(slug);
          }}
        />
      )}
      {selectedStore && (
        <SegmentedControl
          aria-label="What to show"
          value={view}
          onChange={(value) => setView(value as 'statements' | 'refused')}
          data={[
            { value: 'statements', label: 'Statements' },
            { value: 'refused', label: 'Refused requests' },
          ]}
          style={{ alignSelf: 'flex-start' }}
        />
      )}
      {selectedStore && view === 'refused' && <RefusalLog key={selectedStore.slug} slug={selectedStore.slug} />}
      {selectedStore && view === 'statements' && (
        <Paper withBorder p="md" component="form" onSubmit={apply} aria-label="Search statements">
          <Stack gap="sm">
            <SimpleGrid cols={{ base: 1, md: 2, lg: 4 }}>
              <TextInput label="Actor" placeholder="ada@example.com or agent JSON" value={draft.agent} onChange={(e) => setDraft({ ...draft, agent: e.currentTarget.value })} />
              <TextInput label="Activity id" placeholder="http://example.com/courses/module-1" value={draft.activity} onChange={(e) => setDraft({ ...draft, activity: e.currentTarget.value })} />
              <TextInput label="Verb id" placeholder="http://adlnet.gov/expapi/verbs/completed" value={draft.verb} onChange={(e) => setDraft({ ...draft, verb: e.currentTarget.value })} />
              <TextInput
                label="Registration (one attempt)"
                placeholder="6f1c0a52-8d8e-4f55-9a2c-…"
                value={draft.registration}
                onChange={(e) => setDraft({ ...draft, registration: e.currentTarget.value })}
                error={page.error?.field === 'registration' ? page.error.message : undefined}
              />
            </SimpleGrid>
            <Group align="flex-end" gap="md">
              <LabeledSegmentedControl<StatusChoice>
                id="status-filter-label"
                label="Status"
                value={draft.status}
                onChange={(status) => {
                  // A choice of status is a search at once: nothing to type after it.
                  const next = { ...draft, status };
                  setDraft(next);
                  setFilters(toFilters(next));
                  setCursors([]);
                }}
                data={[
                  { value: 'all', label: 'All' },
                  { value: 'accepted', label: 'Accepted' },
                  { value: 'voided', label: 'Voided' },
                  { value: 'rejected', label: 'Rejected' },
                ]}
              />
              <Switch
                label="Only with warnings"
                checked={draft.warned}
                onChange={(event) => {
                  // Applies at once, like the status.
                  const next = { ...draft, warned: event.currentTarget.checked };
                  setDraft(next);
                  setFilters(toFilters(next));
                  setCursors([]);
                }}
                mb={8}
              />
              <TextInput type="datetime-local" label="From" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.currentTarget.value })} />
              <TextInput type="datetime-local" label="To" value={draft.until} onChange={(e) => setDraft({ ...draft, until: e.currentTarget.value })} />
              <Button type="submit">Search</Button>
              <Button variant="default" onClick={clear} disabled={!filtered && draft === EMPTY_DRAFT}>
                Clear
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}
      {view === 'statements' && page.error && <ErrorState title="The search failed" error={page.error} onRetry={page.reload} />}
      {view === 'statements' && page.loading && <LoadingState label="Searching…" />}
      {view === 'statements' && selectedStore && page.data && page.data.records.length === 0 && (
        filtered ? (
          <EmptyState title="Nothing matches" action={<Button variant="default" onClick={clear}>Clear the filters</Button>}>
            No statement of {selectedStore.slug} matches these filters.
          </EmptyState>
        ) : (
          <EmptyState title="No statements yet" action={<Anchor href={routeHref({ screen: 'keys', store: selectedStore.slug })}>Create an API key</Anchor>}>
            Point your content at {selectedStore.endpoint} with an API key of this Store, or use “Send a test statement” on the Stores
            screen. Statements appear here within a second or two.
          </EmptyState>
        )
      )}
      {view === 'statements' && page.data && page.data.records.length > 0 && (
        <>
          <DataTable
            caption={`Statements of ${selectedStore?.slug ?? ''}`}
            data={page.data.records}
            columns={columns}
            rowKey={(record) => String(record.seq)}
            rowProps={(record) => ({ 'data-status': record.status, 'data-seq': String(record.seq) })}
          />
          <Group justify="space-between">
            <Button variant="default" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              ← Newer
            </Button>
            <Button variant="default" disabled={!page.data.next} onClick={() => page.data?.next && setCursors([...cursors, page.data.next])}>
              Older →
            </Button>
          </Group>
        </>
      )}
      <StatementDetail record={open} onClose={() => setOpen(null)} />
    </Stack>
  );
}
