import { useDebouncedValue } from '@mantine/hooks';
import type { AdminInput } from '../../api/admin-client';
import { useAdminQuery, useLiveEvents } from '../../api/hooks';
import type { ExplorerFilters } from './explorer-url';

export type SuggestField = AdminInput<'statements.suggest'>['field'];

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

/** How long typing pauses before suggestions are asked for: one request per pause, not per key. */
const SUGGEST_DEBOUNCE_MS = 200;

/**
 * What the Store holds that a filter's text could mean (learners, verbs, Activities by name),
 * asked once typing pauses; answers are cached, so typing back to an earlier text asks nothing.
 * Agent JSON is typed whole: nothing is suggested for it.
 */
export function useExplorerSuggestions(slug: string | undefined, field: SuggestField, text: string) {
  const [typed] = useDebouncedValue(text.trim(), SUGGEST_DEBOUNCE_MS);
  const ask = slug !== undefined && typed !== '' && !typed.startsWith('{');
  return useAdminQuery('statements.suggest', ask ? { slug, field, prefix: typed, limit: 8 } : null);
}

function withoutEmpty(filters: ExplorerFilters): ExplorerFilters {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== '')) as ExplorerFilters;
}
