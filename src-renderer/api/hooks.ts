/**
 * Data hooks over the AdminClient. Reads go through one query cache per window (TanStack Query,
 * set up by AdminClientProvider): screens that show the same read (the Stores list and the Store
 * picker, the status in the header and on the Connection screen) share one request and one answer.
 * Live events ask for the reads they change again. Features wrap these in queries.ts / mutations.ts.
 */
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AdminInput, AdminOperationName, AdminOutput, StoreChangeView, SubscribeOptions } from './admin-client';
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
  const query = useQuery({
    // The input as JSON: equal inputs are one cache entry whatever their key order.
    queryKey: [name, input === null ? null : JSON.stringify(input)],
    queryFn: () => client.call(name, input as AdminInput<N>),
    enabled: input !== null,
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  return {
    data: query.data,
    error: query.error === null ? undefined : toAdminError(query.error),
    loading: input !== null && query.isPending,
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

/** The live stream as a person reads it: not yet up, up, or down after having been up. */
export type LiveState = 'connecting' | 'live' | 'reconnecting';

/** The next LiveState when the stream connects (true) or drops (false). */
function nextLiveState(previous: LiveState, connected: boolean): LiveState {
  if (connected) return 'live';
  return previous === 'connecting' ? 'connecting' : 'reconnecting';
}

/**
 * Calls `onChanges` when the Store (or any Store) changed, at most once per `throttleMs` with the
 * news gathered meanwhile, and with no news when the live stream comes back after a drop: what
 * changed while it was down is then asked again, not waited for. Returns whether the live stream
 * is up ('live'), not yet ('connecting') or down again ('reconnecting').
 */
export function useLiveEvents(
  onChanges: (changes: StoreChangeView[]) => void,
  options: { store?: string | undefined; throttleMs?: number; enabled?: boolean } = {},
): LiveState {
  const client = useAdminClient();
  const [state, setState] = useState<LiveState>('connecting');
  const handler = useRef(onChanges);
  useEffect(() => {
    handler.current = onChanges;
  });
  const { store, throttleMs = 250, enabled = true } = options;

  useEffect(() => {
    if (!enabled) return;
    let pending: StoreChangeView[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    let dropped = false;
    const flush = () => {
      timer = undefined;
      const changes = pending;
      pending = [];
      handler.current(changes);
    };
    const subscribeOptions: SubscribeOptions = {
      onConnectionChange: (now) => {
        setState((previous) => nextLiveState(previous, now));
        if (!now) dropped = true;
        else if (dropped) {
          dropped = false;
          timer ??= setTimeout(flush, 0);
        }
      },
    };
    if (store !== undefined) subscribeOptions.store = store;
    const unsubscribe = client.subscribe((change) => {
      pending.push(change);
      timer ??= setTimeout(flush, throttleMs);
    }, subscribeOptions);
    return () => {
      unsubscribe();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [client, store, throttleMs, enabled]);
  return state;
}
