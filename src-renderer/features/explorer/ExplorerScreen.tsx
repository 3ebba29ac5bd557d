import { LiveBadge } from '../../ui/LiveBadge';
import { Anchor, Button, Group, Paper, SegmentedControl, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { createColumnHelper } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import type { ExplorerPageView } from '../../../src-server/admin/contract';
import { routeHref, type ExplorerUrlFilters } from '../../routes';
import { DataTable } from '../../ui/DataTable';
import { RelativeTime } from '../../ui/RelativeTime';
import { EmptyState, ErrorState, LoadingState } from '../../ui/StateViews';
import { StatusBadge } from '../../ui/StatusBadge';
import { useStores } from '../stores/queries';
import { StorePicker } from '../stores/StorePicker';
import { draftFromUrl, searchFromUrl, urlFromDraft, type Draft, type StatusChoice } from './explorer-url';
import { FilterAutocomplete } from './FilterAutocomplete';
import { useExplorerPage, type SuggestField } from './queries';
import { StatementDetail } from './StatementDetail';
import { statementSentence } from './statement-sentence';
import { LabeledSegmentedControl } from '../../ui/LabeledSegmentedControl';
import { RefusalLog } from '../refusals/RefusalLog';
import { ExportMenu } from './ExportMenu';

type ExplorerRecord = ExplorerPageView['records'][number];

const column = createColumnHelper<ExplorerRecord>();

/** The filters typed as text, with suggestions from what the Store holds (the API's names: agent, activity, verb). */
const TEXT_FILTERS: ReadonlyArray<{ field: SuggestField; label: string; placeholder: string }> = [
  { field: 'agent', label: 'Actor', placeholder: 'Ada, ada@example.com or agent JSON' },
  { field: 'activity', label: 'Activity', placeholder: 'Module 4, or its IRI' },
  { field: 'verb', label: 'Verb', placeholder: 'completed, or its IRI' },
];

interface ExplorerScreenProps {
  store: string | undefined;
  /** The search as the URL holds it: the screen shows it, and changes it by navigating. */
  filters: ExplorerUrlFilters | undefined;
  onNavigate: (store: string | undefined, filters: ExplorerUrlFilters | undefined) => void;
}

export function ExplorerScreen({ store, filters, onNavigate }: ExplorerScreenProps) {
  const stores = useStores();
  const selected = store ?? stores.data?.stores[0]?.slug;
  const selectedStore = stores.data?.stores.find((s) => s.slug === selected);
  // The URL is the search: the form and the paging start over whenever it changes (a search
  // applied, Back, Forward, a link), so they are kept with the address they belong to.
  const searchKey = JSON.stringify(filters ?? {});
  const [edit, setEdit] = useState<{ key: string; draft: Draft }>(() => ({ key: searchKey, draft: draftFromUrl(filters) }));
  const draft = edit.key === searchKey ? edit.draft : draftFromUrl(filters);
  const setDraft = (next: Draft) => setEdit({ key: searchKey, draft: next });
  // Cursors of the pages before the current one: "Newer" pops, "Older" pushes.
  const pagingKey = `${selected ?? ''} ${searchKey}`;
  const [paging, setPaging] = useState<{ key: string; cursors: string[] }>({ key: pagingKey, cursors: [] });
  const cursors = paging.key === pagingKey ? paging.cursors : [];
  const setCursors = (next: string[]) => setPaging({ key: pagingKey, cursors: next });
  const cursor = cursors[cursors.length - 1];
  const search = useMemo(() => searchFromUrl(filters), [filters]);
  const page = useExplorerPage(selectedStore?.slug, search, cursor);
  const [open, setOpen] = useState<ExplorerRecord | null>(null);
  // Statements (accepted, voided, rejected), or the requests refused before any statement was read.
  const [view, setView] = useState<'statements' | 'refused'>('statements');

  const columns = useMemo(
    () => [
      column.accessor('receivedAt', {
        header: 'Received',
        cell: (info) => <RelativeTime iso={info.getValue()} />,
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

  /** A search applied is a new address: a history entry, which Back returns from. */
  const applyDraft = (next: Draft) => {
    const nextFilters = urlFromDraft(next);
    if (JSON.stringify(nextFilters ?? {}) === searchKey) {
      // The same search again: asked again, from its first page.
      setCursors([]);
      page.reload();
    } else {
      onNavigate(selected, nextFilters);
    }
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    applyDraft(draft);
  };
  const clear = () => onNavigate(selected, undefined);
  const filtered = filters !== undefined;
  const fieldError = (field: string) => (page.error?.field === field ? page.error.message : undefined);

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
          onChange={(slug) => onNavigate(slug, filters)}
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
              {TEXT_FILTERS.map(({ field, label, placeholder }) => (
                <FilterAutocomplete
                  key={field}
                  slug={selectedStore.slug}
                  field={field}
                  label={label}
                  placeholder={placeholder}
                  value={draft[field]}
                  onChange={(text) => setDraft({ ...draft, [field]: text })}
                  // A suggestion picked is a search at once, by exactly what was picked.
                  onPick={(text) => applyDraft({ ...draft, [field]: text })}
                  error={fieldError(field)}
                />
              ))}
              <TextInput
                label="Registration (one attempt)"
                placeholder="6f1c0a52-8d8e-4f55-9a2c-…"
                value={draft.registration}
                onChange={(e) => setDraft({ ...draft, registration: e.currentTarget.value })}
                error={fieldError('registration')}
              />
            </SimpleGrid>
            <Group align="flex-end" gap="md">
              <LabeledSegmentedControl<StatusChoice>
                id="status-filter-label"
                label="Status"
                value={draft.status}
                // A choice of status is a search at once: nothing to type after it.
                onChange={(status) => applyDraft({ ...draft, status })}
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
                // Applies at once, like the status.
                onChange={(event) => applyDraft({ ...draft, warned: event.currentTarget.checked })}
                mb={8}
              />
              <TextInput type="datetime-local" label="From" value={draft.since} onChange={(e) => setDraft({ ...draft, since: e.currentTarget.value })} />
              <TextInput type="datetime-local" label="To" value={draft.until} onChange={(e) => setDraft({ ...draft, until: e.currentTarget.value })} />
              <Button type="submit">Search</Button>
              <Button variant="default" onClick={clear} disabled={!filtered && urlFromDraft(draft) === undefined}>
                Clear
              </Button>
              {/* What the search applied shows (the URL's), not the form being typed. */}
              <ExportMenu store={selectedStore.slug} search={search} />
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
