import { useAdminMutation, useAdminQuery, useLiveEvents } from '../../api/hooks';

/** A Store's forwarders with their status; asked again as the Store's statements arrive (and are delivered). */
export function useForwarders(slug: string | undefined) {
  const forwarders = useAdminQuery('forwarders.list', slug === undefined ? null : { slug });
  useLiveEvents(() => forwarders.reload(), { store: slug, throttleMs: 1000, enabled: slug !== undefined });
  return forwarders;
}

export const useDeadLetters = (slug: string, id: string | null) => useAdminQuery('forwarders.deadLetters', id === null ? null : { slug, id });
export const useCreateForwarder = () => useAdminMutation('forwarders.create');
export const useUpdateForwarder = () => useAdminMutation('forwarders.update');
export const useDeleteForwarder = () => useAdminMutation('forwarders.delete');
export const useRedeliver = () => useAdminMutation('forwarders.redeliver');
