import { Badge, Tooltip } from '@mantine/core';
import { useEffect } from 'react';
import { useAdminQuery } from '../../api/hooks';
import { routeHref } from '../../routes';
import { capacityBadgeLabel } from './capacity';

/** Capacity moves slowly: a look a minute is enough, and keeps no extra live stream open. */
const CAPACITY_POLL_MS = 60_000;

/** In the header, on every screen: shown only when the database is filling up or full. */
export function CapacityBadge() {
  const status = useAdminQuery('status.get', {});
  const { reload } = status;
  useEffect(() => {
    const timer = setInterval(reload, CAPACITY_POLL_MS);
    return () => clearInterval(timer);
  }, [reload]);
  const capacity = status.data?.capacity;
  const label = capacityBadgeLabel(capacity);
  if (!capacity || !label) return null;
  return (
    <Tooltip label="See Connection → Database capacity for what to do">
      <Badge
        component="a"
        href={routeHref({ screen: 'connection' })}
        color={capacity.state === 'full' ? 'red' : 'yellow'}
        variant="filled"
        size="lg"
        tt="none"
        data-testid="capacity-badge"
        style={{ cursor: 'pointer' }}
      >
        {label}
      </Badge>
    </Tooltip>
  );
}
