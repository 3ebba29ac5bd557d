import { useEffect, useState } from 'react';
import type { LoreBridge, ServiceStatus } from '../../src-main/bridge-types';

export interface ServiceStatusState {
  /** Undefined until the first answer. */
  status?: ServiceStatus;
  /** Set when the desktop app did not answer the status query. */
  error?: string;
}

/** The local service's status from the desktop bridge, kept current by its push channel. */
export function useServiceStatus(bridge: LoreBridge): ServiceStatusState {
  const [state, setState] = useState<ServiceStatusState>({});
  useEffect(() => {
    let active = true;
    // Subscribe first so that no change between the query and the subscription is lost.
    const unsubscribe = bridge.onServiceStatus((status) => {
      if (active) setState({ status });
    });
    bridge
      .serviceStatus()
      .then((status) => {
        // A pushed status may have arrived first; it is newer than the answer to the query.
        if (active) setState((previous) => (previous.status ? previous : { status }));
      })
      .catch((error: unknown) => {
        if (active) setState((previous) => ({ ...previous, error: String(error) }));
      });
    return () => {
      active = false;
      unsubscribe();
    };
  }, [bridge]);
  return state;
}
