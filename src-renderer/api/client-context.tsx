import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, useContext, useMemo } from 'react';
import type { ReactNode } from 'react';
import type { AdminClient } from './admin-client';
import { withSharedLiveEvents } from './shared-live-events';

const AdminClientContext = createContext<AdminClient | null>(null);

/**
 * The reads' cache of one window and one service. An answer is fresh for a few seconds: a screen
 * opened meanwhile shows it without asking again; live events and `reload` ask at once. A refused
 * read is shown as it is, not retried (the person reads the reason; a dropped service shows as
 * such), and a window coming back into focus asks nothing by itself.
 */
function newQueryCache(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { staleTime: 5_000, retry: false, refetchOnWindowFocus: false } } });
}

/**
 * Gives the window's screens one client, whose live events come through one shared stream, and
 * one cache of its reads; a new client (another service) starts with an empty cache.
 */
export function AdminClientProvider({ client, children }: { client: AdminClient; children: ReactNode }) {
  const shared = useMemo(() => ({ client: withSharedLiveEvents(client), cache: newQueryCache() }), [client]);
  return (
    <QueryClientProvider client={shared.cache}>
      <AdminClientContext.Provider value={shared.client}>{children}</AdminClientContext.Provider>
    </QueryClientProvider>
  );
}

export function useAdminClient(): AdminClient {
  const client = useContext(AdminClientContext);
  if (!client) throw new Error('useAdminClient outside AdminClientProvider');
  return client;
}
