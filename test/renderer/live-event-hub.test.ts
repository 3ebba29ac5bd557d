/**
 * The browser-wide live stream (src-renderer/api/live-event-hub.ts): tabs talk to the hub over
 * real MessagePorts (node:worker_threads' MessageChannel, as a SharedWorker's ports), and the hub
 * opens one upstream per service and token, counted here. The whole in Chromium, with ten tabs:
 * test/e2e/many-tabs.test.ts.
 */
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdminClient, RefusalEventView, StoreChangeView } from '../../src-renderer/api/admin-client';
import { createLiveEventHub, withCrossTabLiveEvents, type HubPort, type OpenUpstream } from '../../src-renderer/api/live-event-hub';

type Handlers = Parameters<OpenUpstream>[1];

function countingUpstreams() {
  const opened: Array<{ target: { baseUrl: string; token: string }; handlers: Handlers; closed: boolean }> = [];
  const open: OpenUpstream = (target, handlers) => {
    const upstream = { target, handlers, closed: false };
    opened.push(upstream);
    return () => {
      upstream.closed = true;
    };
  };
  return { opened, open };
}

const unused = () => Promise.reject(new Error('not used'));
const plainClient: AdminClient = {
  call: unused,
  connection: unused,
  downloadBackup: unused,
  importPackage: unused,
  openLaunch: unused,
  saveAttemptReport: unused,
  saveExport: unused,
  subscribe: () => {
    throw new Error('a tab must not open a stream of its own');
  },
};

const ports: Array<{ close(): void }> = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** A tab connected to the hub, with its own page lifecycle to fire. */
function tab(hub: ReturnType<typeof createLiveEventHub>, token = 'token-a') {
  const channel = new MessageChannel();
  ports.push(channel.port1, channel.port2);
  hub.connect(channel.port2 as unknown as HubPort);
  let lifecycle: { hidden: () => void; shown: () => void } | undefined;
  const client = withCrossTabLiveEvents(plainClient, {
    port: channel.port1 as unknown as HubPort,
    baseUrl: 'http://lrs.test:8411',
    token,
    onPageLifecycle: (handlers) => {
      lifecycle = handlers;
    },
  });
  return { client, hide: () => lifecycle!.hidden(), show: () => lifecycle!.shown() };
}

const change = (store: string, toSeq: number): StoreChangeView => ({ store, toSeq, count: 1 });

describe('one live stream per browser', () => {
  it('opens one upstream for every tab and hands each tab what its listeners asked for', async () => {
    const { opened, open } = countingUpstreams();
    const hub = createLiveEventHub(open);
    const first = tab(hub);
    const second = tab(hub);
    const all: string[] = [];
    const demo: string[] = [];
    const demoRefusals: Array<string | null> = [];
    const states: boolean[] = [];
    first.client.subscribe((c) => all.push(c.store), { onConnectionChange: (now) => states.push(now) });
    second.client.subscribe((c) => demo.push(c.store), { store: 'demo', onRefusal: (r) => demoRefusals.push(r.store) });
    await vi.waitFor(() => expect(hub.upstreams()).toBe(1));
    expect(opened).toHaveLength(1);
    expect(opened[0]!.target).toEqual({ baseUrl: 'http://lrs.test:8411', token: 'token-a' });

    const upstream = opened[0]!.handlers;
    upstream.onConnectionChange(true);
    upstream.onChange(change('demo', 5));
    upstream.onChange(change('other', 6));
    const refusal = (store: string | null): RefusalEventView => ({ store, id: 1, status: 401, code: 'wrong_secret', at: '2026-11-26T00:00:00.000Z' });
    upstream.onRefusal(refusal('demo'));
    upstream.onRefusal(refusal('other'));
    await vi.waitFor(() => expect(all).toEqual(['demo', 'other']));
    await vi.waitFor(() => expect(demo).toEqual(['demo']));
    await vi.waitFor(() => expect(demoRefusals).toEqual(['demo']));
    expect(states).toEqual([true]);

    // A tab that joins later learns at once that the stream is up.
    const third = tab(hub);
    const late: boolean[] = [];
    third.client.subscribe(() => {}, { onConnectionChange: (now) => late.push(now) });
    await vi.waitFor(() => expect(late).toEqual([true]));
    expect(opened).toHaveLength(1);
  });

  it('keeps the stream while a tab still listens and closes it when the last leaves, a closed page included', async () => {
    const { opened, open } = countingUpstreams();
    const hub = createLiveEventHub(open);
    const first = tab(hub);
    const second = tab(hub);
    const stopFirst = first.client.subscribe(() => {});
    const seen: number[] = [];
    second.client.subscribe((c) => seen.push(c.toSeq));
    await vi.waitFor(() => expect(hub.upstreams()).toBe(1));
    stopFirst();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened[0]!.closed).toBe(false);
    opened[0]!.handlers.onChange(change('demo', 7));
    await vi.waitFor(() => expect(seen).toEqual([7]));

    // The second tab is closed without unsubscribing: its pagehide leaves the hub.
    second.hide();
    await vi.waitFor(() => expect(opened[0]!.closed).toBe(true));
    expect(hub.upstreams()).toBe(0);

    // Back from the back-forward cache with its listener: it joins again, on a new upstream.
    second.show();
    await vi.waitFor(() => expect(hub.upstreams()).toBe(1));
    expect(opened).toHaveLength(2);
  });

  it('never shares a stream between tokens, and tells the tabs of a refused token', async () => {
    const { opened, open } = countingUpstreams();
    const hub = createLiveEventHub(open);
    const refused = vi.fn();
    const channel = new MessageChannel();
    ports.push(channel.port1, channel.port2);
    hub.connect(channel.port2 as unknown as HubPort);
    const stale = withCrossTabLiveEvents(plainClient, {
      port: channel.port1 as unknown as HubPort,
      baseUrl: 'http://lrs.test:8411',
      token: 'token-old',
      onPageLifecycle: () => {},
      onUnauthorized: refused,
    });
    stale.subscribe(() => {});
    tab(hub, 'token-a').client.subscribe(() => {});
    await vi.waitFor(() => expect(hub.upstreams()).toBe(2));
    expect(opened.map((upstream) => upstream.target.token).sort()).toEqual(['token-a', 'token-old']);
    opened.find((upstream) => upstream.target.token === 'token-old')!.handlers.onUnauthorized();
    await vi.waitFor(() => expect(refused).toHaveBeenCalledTimes(1));
  });
});
