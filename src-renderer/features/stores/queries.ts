import { useAdminQuery, useLiveEvents } from '../../api/hooks';

/** Every Store with its counts; the counts follow live events. */
export function useStores() {
  const query = useAdminQuery('stores.list', {});
  useLiveEvents(() => query.reload(), { throttleMs: 1000 });
  return query;
}
