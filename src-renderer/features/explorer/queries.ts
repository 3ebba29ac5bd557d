import type { AdminInput } from '../../api/admin-client';
import { useAdminQuery, useLiveEvents } from '../../api/hooks';

/** The search as the console sends it (the query string's forms: `warned` is 'true'). */
export type ExplorerFilters = Pick<AdminInput<'statements.search'>, 'agent' | 'activity' | 'verb' | 'registration' | 'warned' | 'status' | 'since' | 'until'>;

/**
 * One page of a Store's statements. On the first page, new statements appear as they arrive: a
 * live event of this Store asks for the page again (the events carry no statement body).
 */
export function useExplorerPage(slug: string | undefined, filters: ExplorerFilters, cursor: string | undefined, limit = 25) {
  const input = slug === undefined ? null : { slug, ...withoutEmpty(filters), limit, ...(cursor ? { cursor } : {}) };
  const page = useAdminQuery('statements.search', input);
  const live = useLiveEvents(() => page.reload(), { store: slug, throttleMs: 200, enabled: slug !== undefined && cursor === undefined });
  return { ...page, live };
}

function withoutEmpty(filters: ExplorerFilters): ExplorerFilters {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== '')) as ExplorerFilters;
}
