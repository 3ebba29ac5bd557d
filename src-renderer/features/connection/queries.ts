import { useEffect, useState } from 'react';
import type { ConnectionInfo } from '../../api/admin-client';
import { useAdminClient } from '../../api/client-context';
import { useAdminQuery, useLiveEvents } from '../../api/hooks';

export function useServiceStatus() {
  const status = useAdminQuery('status.get', {});
  useLiveEvents(() => status.reload(), { throttleMs: 2000 });
  return status;
}

/** Which deployment the console manages; undefined until the transport says. */
export function useConnectionInfo(): ConnectionInfo | undefined {
  const client = useAdminClient();
  const [info, setInfo] = useState<ConnectionInfo>();
  useEffect(() => {
    let active = true;
    client
      .connection()
      .then((next) => active && setInfo(next))
      .catch(() => undefined);
    return () => {
      active = false;
    };
  }, [client]);
  return info;
}
