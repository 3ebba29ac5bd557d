/**
 * The Statement Explorer's search: a Store's statements of every status, rejected ones included,
 * newest first, with cursor paging. Its actor, verb and activity filters take what people type
 * (explorer-filters.ts).
 */
import type { ExplorerQuery, ExplorerRecord, Storage, StoreRecord } from '../storage/storage';
import { statementAsReceived, withoutPropertiesUtf8 } from '../xapi/received-statement';
import type { ExplorerPageView, ExplorerQueryInput } from './contract';
import { resolveFilter } from './explorer-filters';
import { CLOSE_OBJECT_BYTES, asBuffer, joinedUtf8 } from '../xapi/json-text';

/** A record as the console shows it: the statement as sent (for a rejected one, its payload) beside the stored one. */
function explorerRecordView(record: ExplorerRecord): ExplorerPageView['records'][number] {
  const { payload, stored, storedJson: _storedJson, storedUtf8: _storedUtf8, receivedJson: _receivedJson, received, lrsAdded, ...rest } = record;
  if (stored === undefined) return { ...rest, statement: payload };
  return { ...rest, statement: statementAsReceived(stored, received, lrsAdded), stored };
}

/** The members explorerRecordParts writes from the statement's text rather than as values. */
const TEXT_MEMBERS = new Set(['payload', 'stored', 'storedJson', 'storedUtf8', 'received', 'receivedJson', 'lrsAdded']);

const PAGE_HEAD = Buffer.from('{"records":[');
const STORED_MEMBER = Buffer.from(',"stored":');

/**
 * explorerRecordView as JSON, in UTF-8 pieces. Where the storage gave the
 * statement's bytes or text (storedUtf8, storedJson), they are written as they are, and the
 * statement as sent is cut from them (or is the received text): the same JSON as the view's,
 * without parsing and serialising every statement of the page, or making a string of it.
 */
function explorerRecordParts(record: ExplorerRecord): Uint8Array[] {
  const { storedUtf8, storedJson, receivedJson, lrsAdded } = record;
  const stored = storedUtf8 !== undefined ? asBuffer(storedUtf8) : storedJson !== undefined ? Buffer.from(storedJson, 'utf8') : undefined;
  const sent =
    stored === undefined
      ? null
      : receivedJson !== undefined
        ? Buffer.from(receivedJson, 'utf8')
        : lrsAdded === undefined
          ? stored
          : withoutPropertiesUtf8(stored, lrsAdded);
  if (stored === undefined || sent === null) return [Buffer.from(JSON.stringify(explorerRecordView(record)), 'utf8')];
  const head: Record<string, unknown> = {};
  // By name, not Object.entries: that would read `stored`, which a storage may parse only when read.
  for (const name of Object.keys(record)) {
    if (!TEXT_MEMBERS.has(name)) head[name] = record[name as keyof ExplorerRecord];
  }
  // The other members as one object's text, its closing brace replaced by the two statements.
  const members = JSON.stringify(head);
  return [Buffer.from(`${members.length > 2 ? `${members.slice(0, -1)},` : '{'}"statement":`, 'utf8'), sent, STORED_MEMBER, stored, CLOSE_OBJECT_BYTES];
}

/** The page as JSON in UTF-8: what the route sends (ExplorerPageView). */
export function explorerPageUtf8(records: readonly ExplorerRecord[], next: string | null): Buffer {
  return joinedUtf8(PAGE_HEAD, records.map(explorerRecordParts), Buffer.from(`],"next":${JSON.stringify(next)}}`, 'utf8'));
}

export type ExplorerSearch = { ok: true; body: Buffer } | { ok: false; field: 'agent' | 'verb' | 'activity'; message: string };

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
  return { ok: true, body: explorerPageUtf8(page.records, page.nextBeforeSeq === null ? null : String(page.nextBeforeSeq)) };
}
