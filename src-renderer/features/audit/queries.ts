import { useEffect } from 'react';
import type { AdminInput } from '../../api/admin-client';
import { useAdminQuery } from '../../api/hooks';

/** How often the newest page is asked again while shown: admin actions are rare, a poll costs one small read. */
const REFRESH_MS = 3_000;

/** One page of the audit log, newest first; the first page is asked again every few seconds. */
export function useAuditPage(filters: Pick<AdminInput<'audit.list'>, 'store' | 'action'>, cursor: string | undefined) {
  const page = useAdminQuery('audit.list', { ...filters, limit: 50, ...(cursor === undefined ? {} : { cursor }) });
  const { reload } = page;
  useEffect(() => {
    if (cursor !== undefined) return undefined;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [cursor, reload]);
  return page;
}
