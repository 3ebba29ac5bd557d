import type { ServiceStatusState } from './use-service-status';

export interface StatusText {
  label: string;
  color: string;
  detail?: string;
}

/** How the header badge shows the local service's state. */
export function serviceStatusText({ status, error }: ServiceStatusState): StatusText {
  if (!status) {
    return error
      ? { label: 'Service status unavailable', color: 'red', detail: error }
      : { label: 'Checking service…', color: 'gray' };
  }
  const detail = status.message !== undefined ? { detail: status.message } : {};
  switch (status.state) {
    case 'starting':
      return { label: 'Service starting', color: 'yellow', ...detail };
    case 'running':
      return { label: 'Service running', color: 'teal', ...(status.url !== undefined ? { detail: status.url } : {}), ...detail };
    case 'restarting':
      return { label: 'Service restarting', color: 'yellow', ...detail };
    case 'failed':
      return { label: 'Service stopped after repeated crashes', color: 'red', ...detail };
    case 'stopped':
      return { label: 'Service stopped', color: 'gray', ...detail };
  }
}
