import { createContext, useContext } from 'react';
import type { ReactNode } from 'react';
import type { AdminClient } from './admin-client';

const AdminClientContext = createContext<AdminClient | null>(null);

export function AdminClientProvider({ client, children }: { client: AdminClient; children: ReactNode }) {
  return <AdminClientContext.Provider value={client}>{children}</AdminClientContext.Provider>;
}

export function useAdminClient(): AdminClient {
  const client = useContext(AdminClientContext);
  if (!client) throw new Error('useAdminClient outside AdminClientProvider');
  return client;
}
