import type { LiveState } from '../../api/hooks';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminClient } from '../../api/admin-client';
import { toAdminError, type AdminError } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { NO_REFUSALS_LOADED, withPage, type LoadedRefusals } from './refusal-pages';

/** One page of a Store's log (`slug`) or of the service-wide log (`slug` null). */
function refusalPage(client: AdminClient, slug: string | null, limit: number, cursor?: string) {
  const query = { limit, ...(cursor === undefined ? {} : { cursor }) };
  return slug === null ? client.call('refusals.service', query) : client.call('refusals.store', { slug, ...query });
}

interface LogState {
  /** The log these rows belong to: rows of another log are never shown. */
  slug: string | null;
  loaded: LoadedRefusals | undefined;
  error: AdminError | undefined;
  /** Which reading of the first page `loaded` includes (readings are numbered as asked). */
  reading: number;
}

/**
 * The refused requests of a Store's log (`slug`), or of the service-wide log (`slug` null),
 * newest first. The first page is asked again as refusal events of that log arrive (at most once
 * per throttleMs) and whenever the live stream (re)connects, so refusals logged before it was up
 * appear too; `live` is 'live' once that reading is shown, 'reconnecting' while the stream is down again. `loadMore` adds the next older page.
 */
export function useRefusalLog(slug: string | null, pageSize = 25, throttleMs = 300) {
  const client = useAdminClient();
  const [state, setState] = useState<LogState>({ slug, loaded: undefined, error: undefined, reading: 0 });
  const readingsAsked = useRef(0);
  const [reading, setReading] = useState(0);
  const readAgain = useCallback(() => {
    readingsAsked.current += 1;
    setReading(readingsAsked.current);
    return readingsAsked.current;
  }, []);
  const [more, setMore] = useState<{ loading: boolean; error: AdminError | undefined }>({ loading: false, error: undefined });
  // The first reading after the stream connected: from then on, events bring every new refusal.
  const [liveFrom, setLiveFrom] = useState<number | undefined>(undefined);
  const [everLive, setEverLive] = useState(false);
  const current = state.slug === slug ? state : { slug, loaded: undefined, error: undefined, reading: 0 };
  const loaded = useRef(current.loaded);
  useEffect(() => {
    loaded.current = current.loaded;
  });

  useEffect(() => {
    let active = true;
    refusalPage(client, slug, pageSize)
      .then((page) => {
        if (!active) return;
        setState((previous) => ({ slug, loaded: withPage(previous.slug === slug ? (previous.loaded ?? NO_REFUSALS_LOADED) : NO_REFUSALS_LOADED, page), error: undefined, reading }));
      })
      .catch((error: unknown) => {
        if (!active) return;
        setState((previous) => ({ ...(previous.slug === slug ? previous : { loaded: undefined, reading: 0 }), slug, error: toAdminError(error) }));
      });
    return () => {
      active = false;
    };
  }, [client, slug, pageSize, reading]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reloadSoon = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        readAgain();
      }, throttleMs);
    };
    // Statement events are not this view's news: only refusals of the log shown.
    const unsubscribe = client.subscribe(() => {}, {
      ...(slug === null ? {} : { store: slug }),
      onConnectionChange: (isConnected) => {
        if (isConnected) setEverLive(true);
        setLiveFrom(isConnected ? readAgain() : undefined);
      },
      onRefusal: (event) => {
        if (slug === null && event.store !== null) return;
        reloadSoon();
      },
    });
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
      setLiveFrom(undefined);
      setEverLive(false);
    };
  }, [client, slug, throttleMs, readAgain]);

  const loadMore = useCallback(() => {
    const cursor = loaded.current?.next;
    if (cursor === null || cursor === undefined) return;
    setMore({ loading: true, error: undefined });
    refusalPage(client, slug, pageSize, cursor)
      .then((page) => {
        setState((previous) => (previous.slug === slug && previous.loaded ? { ...previous, loaded: withPage(previous.loaded, page) } : previous));
        setMore({ loading: false, error: undefined });
      })
      .catch((error: unknown) => setMore({ loading: false, error: toAdminError(error) }));
  }, [client, slug, pageSize]);

  return {
    loaded: current.loaded,
    error: current.error,
    loading: current.loaded === undefined && current.error === undefined,
    reload: readAgain,
    live: (liveFrom !== undefined && current.loaded !== undefined && current.reading >= liveFrom ? 'live' : everLive ? 'reconnecting' : 'connecting') as LiveState,
    loadMore,
    loadingMore: more.loading,
    loadMoreError: more.error,
  };
}
