/**
 * Plain data hooks over the AdminClient (no query library: the console's needs are a handful of
 * reads refreshed by live events). Features wrap these in their own queries.ts / mutations.ts.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminInput, AdminOperationName, AdminOutput, LiveEventView, SubscribeOptions } from './admin-client';
import { toAdminError, type AdminError } from './admin-client';
import { useAdminClient } from './client-context';

export interface QueryState<T> {
  data: T | undefined;
  error: AdminError | undefined;
  /** True until the first answer, and while a changed input loads. */
  loading: boolean;
  /** Asks again; the current data stays on screen meanwhile. */
  reload: () => void;
}

/** Performs `name` with `input` (skipped while input is null) and again whenever input changes. */
export function useAdminQuery<N extends AdminOperationName>(name: N, input: AdminInput<N> | null): QueryState<AdminOutput<N>> {
  const client = useAdminClient();
  const key = input === null ? null : JSON.stringify(input);
  const [state, setState] = useState<{ key: string | null; data?: AdminOutput<N>; error?: AdminError; loading: boolean }>({
    key: null,
    loading: true,
  });
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    if (key === null) return;
    let active = true;
    setState((previous) => ({ ...previous, loading: previous.key !== key || previous.data === undefined }));
    client
      .call(name, JSON.parse(key) as AdminInput<N>)
      .then((data) => {
        if (active) setState({ key, data, loading: false });
      })
      .catch((error: unknown) => {
        if (active) setState((previous) => ({ key, data: previous.key === key ? previous.data : undefined, error: toAdminError(error), loading: false }));
      });
    return () => {
      active = false;
    };
  }, [client, name, key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const current = state.key === key;
  return {
    data: current ? state.data : undefined,
    error: current ? state.error : undefined,
    loading: key !== null && (!current || state.loading),
    reload,
  };
}

export interface MutationState<N extends AdminOperationName> {
  run: (input: AdminInput<N>) => Promise<AdminOutput<N>>;
  pending: boolean;
  error: AdminError | undefined;
  reset: () => void;
}

/** One admin operation that changes something; `run` rejects with an AdminError. */
export function useAdminMutation<N extends AdminOperationName>(name: N): MutationState<N> {
  const client = useAdminClient();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<AdminError | undefined>();
  const run = useCallback(
    async (input: AdminInput<N>) => {
      setPending(true);
      setError(undefined);
      try {
        return await client.call(name, input);
      } catch (caught) {
        const adminError = toAdminError(caught);
        setError(adminError);
        throw adminError;
      } finally {
        setPending(false);
      }
    },
    [client, name],
  );
  return { run, pending, error, reset: useCallback(() => setError(undefined), []) };
}

/**
 * Calls `onEvent` for each live statement event (of one Store, or all), at most once per
 * `throttleMs` with the events gathered meanwhile. Returns whether the live stream is connected.
 */
export function useLiveEvents(
  onEvents: (events: LiveEventView[]) => void,
  options: { store?: string | undefined; throttleMs?: number; enabled?: boolean } = {},
): boolean {
  const client = useAdminClient();
  const [connected, setConnected] = useState(false);
  const handler = useRef(onEvents);
  useEffect(() => {
    handler.current = onEvents;
  });
  const { store, throttleMs = 250, enabled = true } = options;

  useEffect(() => {
    if (!enabled) return;
    let pending: LiveEventView[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const events = pending;
      pending = [];
      handler.current(events);
    };
    const subscribeOptions: SubscribeOptions = { onConnectionChange: setConnected };
    if (store !== undefined) subscribeOptions.store = store;
    const unsubscribe = client.subscribe((event) => {
      pending.push(event);
      timer ??= setTimeout(flush, throttleMs);
    }, subscribeOptions);
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [client, store, throttleMs, enabled]);
  return connected;
}
