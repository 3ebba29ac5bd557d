/**
 * One live-event stream per browser, shared by every console tab (docs/architecture.md, "Live
 * events"). A browser keeps at most six HTTP/1.1 connections per host: a stream per tab would let
 * a handful of tabs take them all and leave the next tab's requests hanging. The hub runs in a
 * SharedWorker (live-events-worker.ts): tabs connect to it over MessagePorts, the hub holds one
 * stream per service and token for all of them and hands each tab every message; the stream
 * closes when the last tab leaves. `withCrossTabLiveEvents` is the tab's side.
 *
 * The messages, both ways, are plain objects (structured clone): see HubRequest and HubMessage.
 */
import { wantsStore, type AdminClient, type RefusalEventView, type StoreChangeView, type SubscribeOptions } from './admin-client';

/** A tab asks for the service's live events (or stops). */
type HubRequest = { type: 'subscribe'; baseUrl: string; token: string } | { type: 'unsubscribe' };

/** What the hub tells a tab. */
type HubMessage =
  | { type: 'change'; change: StoreChangeView }
  | { type: 'refusal'; refusal: RefusalEventView }
  | { type: 'connection'; connected: boolean }
  | { type: 'unauthorized' };

/** The part of a MessagePort the hub uses (the DOM's, or node:worker_threads' in tests). */
export interface HubPort {
  postMessage(message: HubMessage | HubRequest): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  start(): void;
}

/** Opens the one upstream stream of a service for a token; returns its close function. */
export type OpenUpstream = (
  target: { baseUrl: string; token: string },
  handlers: { onChange: (change: StoreChangeView) => void; onRefusal: (refusal: RefusalEventView) => void; onConnectionChange: (connected: boolean) => void; onUnauthorized: () => void },
) => () => void;

interface Upstream {
  ports: Set<HubPort>;
  connected: boolean;
  close: () => void;
}

export interface LiveEventHub {
  /** A tab's port, as the SharedWorker's `connect` event hands it. */
  connect(port: HubPort): void;
  /** Streams open now (tests). */
  upstreams(): number;
}

export function createLiveEventHub(openUpstream: OpenUpstream): LiveEventHub {
  const upstreams = new Map<string, Upstream>();
  const subscriptionOf = new Map<HubPort, string>();

  const broadcast = (key: string, message: HubMessage) => {
    for (const port of upstreams.get(key)?.ports ?? []) port.postMessage(message);
  };

  const leave = (port: HubPort) => {
    const key = subscriptionOf.get(port);
    if (key === undefined) return;
    subscriptionOf.delete(port);
    const upstream = upstreams.get(key);
    if (!upstream) return;
    upstream.ports.delete(port);
    if (upstream.ports.size > 0) return;
    upstreams.delete(key);
    upstream.close();
  };

  const join = (port: HubPort, baseUrl: string, token: string) => {
    // The token is part of the key: tabs signed in with another token never share its stream.
    const key = JSON.stringify([baseUrl, token]);
    if (subscriptionOf.get(port) === key) return;
    leave(port);
    subscriptionOf.set(port, key);
    const existing = upstreams.get(key);
    if (existing) {
      existing.ports.add(port);
      port.postMessage({ type: 'connection', connected: existing.connected });
      return;
    }
    const upstream: Upstream = { ports: new Set([port]), connected: false, close: () => {} };
    upstreams.set(key, upstream);
    upstream.close = openUpstream(
      { baseUrl, token },
      {
        onChange: (change) => broadcast(key, { type: 'change', change }),
        onRefusal: (refusal) => broadcast(key, { type: 'refusal', refusal }),
        onConnectionChange: (connected) => {
          upstream.connected = connected;
          broadcast(key, { type: 'connection', connected });
        },
        onUnauthorized: () => broadcast(key, { type: 'unauthorized' }),
      },
    );
  };

  return {
    connect(port) {
      port.addEventListener('message', ({ data }) => {
        const request = data as HubRequest;
        if (request.type === 'subscribe' && typeof request.baseUrl === 'string' && typeof request.token === 'string') join(port, request.baseUrl, request.token);
        else if (request.type === 'unsubscribe') leave(port);
      });
      port.start();
    },
    upstreams: () => upstreams.size,
  };
}

/**
 * The tab's side: `subscribe` goes through the hub's port (one stream for the whole browser)
 * instead of a stream of this tab's own. Store filtering happens here, as the transports do it.
 * Every listener of the tab shares one subscription to the hub; the tab leaves the hub when its
 * last listener does, and when the page goes away (pagehide: the hub cannot see a closed tab).
 */
export function withCrossTabLiveEvents(
  client: AdminClient,
  hub: {
    port: HubPort;
    baseUrl: string;
    token: string;
    /** Calls `hidden` when the page goes away and `shown` when it comes back (the back-forward cache). */
    onPageLifecycle: (handlers: { hidden: () => void; shown: () => void }) => void;
    onUnauthorized?: () => void;
  },
): AdminClient {
  const listeners = new Set<{ onChange: (change: StoreChangeView) => void; options: SubscribeOptions }>();
  let connected = false;
  let joined = false;

  hub.port.addEventListener('message', ({ data }) => {
    const message = data as HubMessage;
    for (const listener of [...listeners]) {
      if (message.type === 'change' && wantsStore(listener.options, message.change.store)) listener.onChange(message.change);
      else if (message.type === 'refusal' && wantsStore(listener.options, message.refusal.store)) listener.options.onRefusal?.(message.refusal);
      else if (message.type === 'connection') listener.options.onConnectionChange?.(message.connected);
    }
    if (message.type === 'connection') connected = message.connected;
    if (message.type === 'unauthorized') hub.onUnauthorized?.();
  });
  hub.port.start();
  const join = () => {
    if (joined) return;
    joined = true;
    hub.port.postMessage({ type: 'subscribe', baseUrl: hub.baseUrl, token: hub.token });
  };
  const leave = () => {
    if (!joined) return;
    joined = false;
    connected = false;
    hub.port.postMessage({ type: 'unsubscribe' });
  };
  hub.onPageLifecycle({ hidden: leave, shown: () => listeners.size > 0 && join() });

  return {
    ...client,
    subscribe(onChange, options = {}) {
      const listener = { onChange, options };
      listeners.add(listener);
      if (!joined) join();
      else if (connected) options.onConnectionChange?.(true);
      return () => {
        if (listeners.delete(listener) && listeners.size === 0) leave();
      };
    },
  };
}
