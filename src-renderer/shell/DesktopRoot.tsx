import { useEffect, useMemo, useState } from 'react';
import type { LoreBridge } from '../../src-main/bridge-types';
import { AdminClientProvider } from '../api/client-context';
import { DesktopControlsContext } from '../api/desktop-controls';
import { createIpcDesktopControls } from '../api/ipc-desktop-controls';
import { createIpcAdminClient } from '../api/ipc-transport';
import { App } from './App';
import { DesktopServiceBadge } from './DesktopServiceBadge';

/** The desktop app: admin calls go over the preload bridge to the main process. */
export function DesktopRoot({ bridge }: { bridge: LoreBridge }) {
  // A switch of deployment (or the local service moving to another port) builds a new client,
  // so every screen loads again from the deployment now managed.
  const [{ client, generation }, setConnection] = useState(() => ({ client: createIpcAdminClient(bridge), generation: 0 }));
  useEffect(
    () => bridge.onConnection(() => setConnection((current) => ({ client: createIpcAdminClient(bridge), generation: current.generation + 1 }))),
    [bridge],
  );
  const controls = useMemo(() => createIpcDesktopControls(bridge), [bridge]);
  return (
    <DesktopControlsContext.Provider value={controls}>
      <AdminClientProvider client={client}>
        <App key={generation} headerExtra={<DesktopServiceBadge bridge={bridge} />} />
      </AdminClientProvider>
    </DesktopControlsContext.Provider>
  );
}
