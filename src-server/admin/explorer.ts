/**
 * The Statement Explorer's search: a Store's statements of every status, rejected ones included,
 * newest first, with cursor paging. Its actor, verb and activity filters take what people type
 * (explorer-filters.ts).
 */
import type { ExplorerQuery, ExplorerRecord, Storage, StoreRecord } from '../storage/storage';
import { statementAsReceived } from '../xapi/received-statement';
import type { ExplorerPageView, ExplorerQueryInput } from './contract';
import { resolveFilter } from './explorer-filters';

/** A record as the console shows it: the statement as sent (for a rejected one, its payload) beside the stored one. */
function explorerRecordView(record: ExplorerRecord): ExplorerPageView['records'][number] {
  const { payload, stored, received, lrsAdded, ...rest } = record;
  if (stored === undefined) return { ...rest, statement: payload };
  return { ...rest, statement: statementAsReceived(stored, received, lrsAdded), stored };
}

export type ExplorerSearch = { ok: true; page: ExplorerPageView } | { ok: false; field: 'agent' | 'verb' | 'activity'; message: string };

/** The filters of an Explorer search as typed, without its page: what an export of it reads too. */
export type ExplorerFilterInput = Omit<ExplorerQueryInput, 'limit' | 'cursor'>;

export type ExplorerFilter =
  | { ok: true; query: Omit<ExplorerQuery, 'limit' | 'beforeSeq'> }
  | { ok: false; field: 'agent' | 'verb' | 'activity'; message: string };

/** The storage's query for what the filters say, the names typed resolved (explorer-filters.ts). */
export async function explorerFilterOf(storage: Storage, store: StoreRecord, input: ExplorerFilterInput): Promise<ExplorerFilter> {
  const filters: Pick<ExplorerQuery, 'agent' | 'verbId' | 'activityId'> = {};
  for (const [field, text, key] of [
    ['agent', input.agent, 'agent'],
    ['verb', input.verb, 'verbId'],
    ['activity', input.activity, 'activityId'],
  ] as const) {
    if (text === undefined) continue;
    const resolved = await resolveFilter(storage, store, field, text);
    if (!resolved.ok) return { ok: false, field, message: resolved.message };
    filters[key] = resolved.values;
  }
  return {
    ok: true,
    query: {
      status: input.status,
      ...filters,
      registration: input.registration,
      warned: input.warned,
      since: input.since === undefined ? undefined : new Date(input.since).toISOString(),
      until: input.until === undefined ? undefined : new Date(input.until).toISOString(),
    },
  };
}

export async function searchStatements(storage: Storage, store: StoreRecord, input: ExplorerQueryInput): Promise<ExplorerSearch> {
  const filter = await explorerFilterOf(storage, store, input);
  if (!filter.ok) return filter;
  const query: ExplorerQuery = {
    ...filter.query,
    limit: input.limit,
    beforeSeq: input.cursor === undefined ? undefined : Number(input.cursor),
  };
  const page = await storage.searchExplorer(store.id, query);
  return {
    ok: true,
    page: {
      records: page.records.map(explorerRecordView),
      next: page.nextBeforeSeq === null ? null : String(page.nextBeforeSeq),
    },
  };
}
