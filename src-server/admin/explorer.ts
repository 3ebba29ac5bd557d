/**
 * The Statement Explorer's search: a Store's statements of every status, rejected ones included,
 * newest first, with cursor paging. Its actor, verb and activity filters take what people type
 * (explorer-filters.ts).
 */
import type { ExplorerQuery, ExplorerRecord, Storage, StoreRecord } from '../storage/storage';
import { statementAsReceived, withoutPropertiesJson } from '../xapi/received-statement';
import type { ExplorerPageView, ExplorerQueryInput } from './contract';
import { resolveFilter } from './explorer-filters';

/** A record as the console shows it: the statement as sent (for a rejected one, its payload) beside the stored one. */
function explorerRecordView(record: ExplorerRecord): ExplorerPageView['records'][number] {
  const { payload, stored, storedJson: _storedJson, receivedJson: _receivedJson, received, lrsAdded, ...rest } = record;
  if (stored === undefined) return { ...rest, statement: payload };
  return { ...rest, statement: statementAsReceived(stored, received, lrsAdded), stored };
}

/** The members explorerRecordJson writes from the statement's text rather than as values. */
const TEXT_MEMBERS = new Set(['payload', 'stored', 'storedJson', 'received', 'receivedJson', 'lrsAdded']);

/**
 * explorerRecordView as JSON text. Where the storage gave the statement's text (storedJson), the
 * text is written as it is, and the statement as sent is cut from it (or is the received text):
 * the same JSON as the view's, without parsing and serialising every statement of the page.
 */
function explorerRecordJson(record: ExplorerRecord): string {
  const { storedJson, receivedJson, lrsAdded } = record;
  const sent =
    storedJson === undefined ? null : (receivedJson ?? (lrsAdded === undefined ? storedJson : withoutPropertiesJson(storedJson, lrsAdded)));
  if (storedJson === undefined || sent === null) return JSON.stringify(explorerRecordView(record));
  const head: Record<string, unknown> = {};
  // By name, not Object.entries: that would read `stored`, which a storage may parse only when read.
  for (const name of Object.keys(record)) {
    if (!TEXT_MEMBERS.has(name)) head[name] = record[name as keyof ExplorerRecord];
  }
  // The other members as one object's text, its closing brace replaced by the two statements.
  const members = JSON.stringify(head);
  return `${members.length > 2 ? `${members.slice(0, -1)},` : '{'}"statement":${sent},"stored":${storedJson}}`;
}

/** The page as JSON text: what the route sends (ExplorerPageView). */
export function explorerPageJson(records: readonly ExplorerRecord[], next: string | null): string {
  return `{"records":[${records.map(explorerRecordJson).join(',')}],"next":${JSON.stringify(next)}}`;
}

export type ExplorerSearch = { ok: true; json: string } | { ok: false; field: 'agent' | 'verb' | 'activity'; message: string };

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
  return { ok: true, json: explorerPageJson(page.records, page.nextBeforeSeq === null ? null : String(page.nextBeforeSeq)) };
}
