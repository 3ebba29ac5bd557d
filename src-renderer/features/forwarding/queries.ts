import { useEffect } from 'react';
import { useAdminMutation, useAdminQuery, useLiveEvents } from '../../api/hooks';

/** How often the screen asks again while a destination has statements waiting: delivery is no live event. */
const WHILE_PENDING_MS = 2_000;

/**
 * A Store's forwarders with their status; asked again as the Store's statements arrive, and every
 * few seconds while any has something pending or failing (until it is delivered).
 */
export function useForwarders(slug: string | undefined) {
  const forwarders = useAdminQuery('forwarders.list', slug === undefined ? null : { slug });
  useLiveEvents(() => forwarders.reload(), { store: slug, throttleMs: 1000, enabled: slug !== undefined });
  const waiting = forwarders.data?.forwarders.some((f) => !f.paused && (f.pending > 0 || f.failingSince !== null)) ?? false;
  const { reload } = forwarders;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(reload, WHILE_PENDING_MS);
    return () => clearInterval(timer);
  }, [waiting, reload]);
  return forwarders;
}

export const useDeadLetters = (slug: string, id: string | null) => useAdminQuery('forwarders.deadLetters', id === null ? null : { slug, id });
export const useCreateForwarder = () => useAdminMutation('forwarders.create');
export const useUpdateForwarder = () => useAdminMutation('forwarders.update');
export const useDeleteForwarder = () => useAdminMutation('forwarders.delete');
export const useRedeliver = () => useAdminMutation('forwarders.redeliver');
