import { Badge } from '@mantine/core';
import type { LoreBridge } from '../../src-main/bridge-types';
import { serviceStatusText } from './service-status-text';
import { useServiceStatus } from './use-service-status';

/** Whether the desktop app's local service runs (the supervisor's view, not the admin API's). */
export function DesktopServiceBadge({ bridge }: { bridge: LoreBridge }) {
  const { label, color, detail } = serviceStatusText(useServiceStatus(bridge));
  return (
    <Badge color={color} variant="light" title={detail}>
      {label}
    </Badge>
  );
}
