import { useEffect, useRef, useState } from 'react';
import { useAdminClient } from '../../api/client-context';
import { useAdminQuery } from '../../api/hooks';

/**
 * The newest `limit` refused requests of a Store's log (`slug`), or of the service-wide log
 * (`slug` null), asked again as refusal events of that log arrive (at most once per throttleMs).
 */
export function useRefusalLog(slug: string | null, limit: number, throttleMs = 300) {
  const storeLog = useAdminQuery('refusals.store', slug === null ? null : { slug, limit });
  const serviceLog = useAdminQuery('refusals.service', slug === null ? { limit } : null);
  const log = slug === null ? serviceLog : storeLog;
  const client = useAdminClient();
  const [connected, setConnected] = useState(false);
  const reload = useRef(log.reload);
  useEffect(() => {
    reload.current = log.reload;
  });

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Statement events are not this view's news: only refusals of the log shown.
    const unsubscribe = client.subscribe(() => {}, {
      ...(slug === null ? {} : { store: slug }),
      onConnectionChange: setConnected,
      onRefusal: (event) => {
        if (slug === null && event.store !== null) return;
        timer ??= setTimeout(() => {
          timer = undefined;
          reload.current();
        }, throttleMs);
      },
    });
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [client, slug, throttleMs]);

  return { ...log, live: connected };
}
