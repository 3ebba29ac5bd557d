/**
 * The web console's live events: through the browser's one SharedWorker (live-event-hub.ts) where
 * the browser has SharedWorker, so any number of tabs share one stream; else each window keeps
 * its own stream, as before (shared-live-events.ts shares it between the window's screens).
 */
import type { AdminClient } from './admin-client';
import { withCrossTabLiveEvents } from './live-event-hub';

export function withBrowserWideLiveEvents(client: AdminClient, target: { baseUrl: string; token: string; onUnauthorized: () => void }): AdminClient {
  if (typeof SharedWorker !== 'function') return client;
  let worker: SharedWorker;
  try {
    worker = new SharedWorker(new URL('./live-events-worker.ts', import.meta.url), { type: 'module', name: 'lore-live-events' });
  } catch {
    return client; // a browser that refuses workers here (a policy, say): one stream per window
  }
  return withCrossTabLiveEvents(client, {
    port: worker.port,
    baseUrl: target.baseUrl,
    token: target.token,
    onUnauthorized: target.onUnauthorized,
    onPageLifecycle: ({ hidden, shown }) => {
      window.addEventListener('pagehide', hidden);
      window.addEventListener('pageshow', (event) => {
        if (event.persisted) shown();
      });
    },
  });
}
