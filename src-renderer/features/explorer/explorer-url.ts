/**
 * The Explorer's search as three forms of one thing: the filters in the URL (routes.ts: what a
 * reload, Back and a pasted link restore), the form being typed in (a draft, applied by Search),
 * and the search the admin API is asked (queries.ts). Only the URL is kept: the form starts from
 * it, and applying the form writes it.
 */
import type { AdminInput } from '../../api/admin-client';
import type { ExplorerUrlFilters } from '../../routes';
import { isoToLocalInput, localInputToIso } from '../../ui/format';

/** The search as the console sends it (the query string's forms: `warned` is 'true'). */
export type ExplorerFilters = Pick<AdminInput<'statements.search'>, 'agent' | 'activity' | 'verb' | 'registration' | 'warned' | 'status' | 'since' | 'until'>;

export type StatusChoice = 'all' | 'accepted' | 'voided' | 'rejected';

export interface Draft {
  warned: boolean;
  agent: string;
  activity: string;
  verb: string;
  registration: string;
  status: StatusChoice;
  /** `datetime-local` values. */
  since: string;
  until: string;
}

const STATUSES: readonly StatusChoice[] = ['accepted', 'voided', 'rejected'];

export function draftFromUrl(filters: ExplorerUrlFilters | undefined): Draft {
  const status = STATUSES.find((s) => s === filters?.status) ?? 'all';
  return {
    warned: filters?.warned === 'true',
    agent: filters?.actor ?? '',
    activity: filters?.activity ?? '',
    verb: filters?.verb ?? '',
    registration: filters?.registration ?? '',
    status,
    since: filters?.since ? isoToLocalInput(filters.since) : '',
    until: filters?.until ? isoToLocalInput(filters.until) : '',
  };
}

/** The URL's filters of a draft; undefined when it filters nothing. Times go in as ISO instants. */
export function urlFromDraft(draft: Draft): ExplorerUrlFilters | undefined {
  const filters: ExplorerUrlFilters = {};
  if (draft.agent.trim()) filters.actor = draft.agent.trim();
  if (draft.verb.trim()) filters.verb = draft.verb.trim();
  if (draft.activity.trim()) filters.activity = draft.activity.trim();
  if (draft.registration.trim()) filters.registration = draft.registration.trim();
  if (draft.status !== 'all') filters.status = draft.status;
  if (draft.warned) filters.warned = 'true';
  const since = localInputToIso(draft.since);
  const until = localInputToIso(draft.until);
  if (since) filters.since = since;
  if (until) filters.until = until;
  return Object.keys(filters).length > 0 ? filters : undefined;
}

/**
 * The search the URL asks for, as the admin API takes it. A status the API does not know is sent
 * as it is (it answers 400 naming `status`), not dropped: a mistyped link says what is wrong.
 */
export function searchFromUrl(filters: ExplorerUrlFilters | undefined): ExplorerFilters {
  const search: ExplorerFilters = {};
  if (filters?.actor) search.agent = filters.actor;
  if (filters?.verb) search.verb = filters.verb;
  if (filters?.activity) search.activity = filters.activity;
  if (filters?.registration) search.registration = filters.registration;
  if (filters?.status) search.status = filters.status as ExplorerFilters['status'];
  if (filters?.warned) search.warned = filters.warned as ExplorerFilters['warned'];
  if (filters?.since) search.since = filters.since;
  if (filters?.until) search.until = filters.until;
  return search;
}

/**
 * The export's query string of what the search shows (GET /admin/api/stores/:slug/export): the
 * format, then the same filters the Explorer sends.
 */
export function exportQuery(format: 'ndjson' | 'csv', search: ExplorerFilters): string {
  const params = new URLSearchParams({ format });
  for (const [name, value] of Object.entries(search)) if (value !== undefined) params.set(name, String(value));
  return params.toString();
}
