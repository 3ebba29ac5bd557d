/**
 * One live-event stream per window, however many screens and hooks listen: the client's
 * `subscribe` is shared. The first listener opens one stream of every Store's events; each
 * listener gets the events of its Store (or all), the connection changes and the refusals it asked
 * for; the stream closes a while after the last listener leaves, so moving between screens (one
 * unsubscribes just before the next subscribes) keeps it open instead of reconnecting.
 */
import { wantsStore, type AdminClient, type StoreChangeView, type SubscribeOptions } from './admin-client';

/** How long the stream stays open with nobody listening. */
const LINGER_MS = 10_000;

interface Listener {
  onEvent: (change: StoreChangeView) => void;
  options: SubscribeOptions;
}


export function withSharedLiveEvents(client: AdminClient, lingerMs = LINGER_MS): AdminClient {
  const listeners = new Set<Listener>();
  let closeUpstream: (() => void) | null = null;
  let connected = false;
  let lingering: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    closeUpstream = client.subscribe(
      (event) => {
        for (const listener of [...listeners]) if (wantsStore(listener.options, event.store)) listener.onEvent(event);
      },
      {
        onConnectionChange: (now) => {
          connected = now;
          for (const listener of [...listeners]) listener.options.onConnectionChange?.(now);
        },
        onRefusal: (event) => {
          for (const listener of [...listeners]) if (wantsStore(listener.options, event.store)) listener.options.onRefusal?.(event);
        },
      },
    );
  };

  const close = () => {
    lingering = undefined;
    closeUpstream?.();
    closeUpstream = null;
    connected = false;
  };

  return {
    call: (name, input) => client.call(name, input),
    connection: () => client.connection(),
    downloadBackup: () => client.downloadBackup(),
    importPackage: (slug, zip) => client.importPackage(slug, zip),
    ...(client.importStatementsFile ? { importStatementsFile: client.importStatementsFile.bind(client) } : {}),
    openLaunch: (url) => client.openLaunch(url),
    saveAttemptReport: (slug, registration, format) => client.saveAttemptReport(slug, registration, format),
    saveExport: (slug, query) => client.saveExport(slug, query),
    subscribe(onEvent, options = {}) {
      const listener: Listener = { onEvent, options };
      listeners.add(listener);
      if (lingering !== undefined) clearTimeout(lingering);
      lingering = undefined;
      if (closeUpstream === null) open();
      else if (connected) options.onConnectionChange?.(true);
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return;
        lingering = setTimeout(close, lingerMs);
      };
    },
  };
}
