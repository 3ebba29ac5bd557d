/**
 * The SharedWorker every console tab of a browser shares (live-event-hub.ts): it holds the one
 * live-event stream per service and token, read by the HTTP transport as a tab would read it.
 * This file only wires the hub to the worker's `connect` event.
 */
import { createHttpAdminClient } from './http-transport';
import { createLiveEventHub } from './live-event-hub';
import type { HubPort } from './live-event-hub';

const hub = createLiveEventHub(({ baseUrl, token }, handlers) =>
  createHttpAdminClient({ baseUrl, token, onUnauthorized: handlers.onUnauthorized }).subscribe(handlers.onChange, {
    onConnectionChange: handlers.onConnectionChange,
    onRefusal: handlers.onRefusal,
  }),
);

(self as unknown as { onconnect: (event: { ports: readonly HubPort[] }) => void }).onconnect = (event) => {
  const port = event.ports[0];
  if (port) hub.connect(port);
};
