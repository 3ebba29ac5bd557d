import { useAdminQuery, useLiveEvents } from '../../api/hooks';

/** A Store's keys; asked again as the Store's statements arrive, so "Last used" follows the keys' use. */
export function useApiKeys(slug: string | undefined) {
  const keys = useAdminQuery('apiKeys.list', slug === undefined ? null : { slug });
  useLiveEvents(() => keys.reload(), { store: slug, throttleMs: 1000, enabled: slug !== undefined });
  return keys;
}
