import { useEffect } from 'react';
import { useAdminMutation, useAdminQuery } from '../../api/hooks';

/** How often the list is asked again while an import is under way: its counts move. */
const RUNNING_POLL_MS = 1000;

/** A Store's imports, newest first; asked again every second while one is running or paused. */
export function useImports(slug: string) {
  const query = useAdminQuery('imports.list', { slug });
  const { reload } = query;
  const underWay = query.data?.imports.some((job) => job.state === 'running' || job.state === 'paused') ?? false;
  useEffect(() => {
    if (!underWay) return;
    const timer = setInterval(reload, RUNNING_POLL_MS);
    return () => clearInterval(timer);
  }, [underWay, reload]);
  return query;
}

export function useStartImport() {
  return useAdminMutation('imports.start');
}
