/**
 * The window's one live stream (src-renderer/api/shared-live-events.ts) over a client that counts
 * the streams it opens: the transports themselves are tested against a real service in
 * transports.test.ts and in Chromium (test/e2e/console.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import type { AdminClient, StoreChangeView, RefusalEventView, SubscribeOptions } from '../../src-renderer/api/admin-client';
import { withSharedLiveEvents } from '../../src-renderer/api/shared-live-events';

function countingClient() {
  const streams: Array<{ listener: (event: StoreChangeView) => void; options: SubscribeOptions; closed: boolean }> = [];
  const client: AdminClient = {
    call: () => Promise.reject(new Error('not used')),
    connection: () => Promise.reject(new Error('not used')),
    downloadBackup: () => Promise.reject(new Error('not used')),
    importPackage: () => Promise.reject(new Error('not used')),
    openLaunch: () => Promise.reject(new Error('not used')),
    saveAttemptReport: () => Promise.reject(new Error('not used')),
    saveExport: () => Promise.reject(new Error('not used')),
    subscribe(listener, options = {}) {
      const stream = { listener, options, closed: false };
      streams.push(stream);
      return () => {
        stream.closed = true;
      };
    },
  };
  return { client, streams };
}

const event = (store: string): StoreChangeView => ({ store, toSeq: 1, count: 1 });
const refusal = (store: string | null): RefusalEventView => ({ store, id: 1, status: 401, code: 'wrong_secret', at: '2026-11-25T00:00:00.000Z' });

describe('one live stream per window', () => {
  it('opens one stream of every Store for all its listeners, and gives each what it asked for', () => {
    const { client, streams } = countingClient();
    const shared = withSharedLiveEvents(client);
    const all: string[] = [];
    const demo: string[] = [];
    const demoRefusals: Array<string | null> = [];
    const connected: boolean[] = [];
    shared.subscribe((e) => all.push(e.store), { onConnectionChange: (now) => connected.push(now) });
    shared.subscribe((e) => demo.push(e.store), { store: 'demo', onRefusal: (r) => demoRefusals.push(r.store) });
    expect(streams).toHaveLength(1);
    expect(streams[0]!.options.store).toBeUndefined();
    streams[0]!.options.onConnectionChange!(true);
    streams[0]!.listener(event('demo'));
    streams[0]!.listener(event('other'));
    streams[0]!.options.onRefusal!(refusal('demo'));
    streams[0]!.options.onRefusal!(refusal(null));
    expect(all).toEqual(['demo', 'other']);
    expect(demo).toEqual(['demo']);
    expect(demoRefusals).toEqual(['demo']);
    expect(connected).toEqual([true]);
    // A listener arriving on a connected stream hears so at once.
    const late: boolean[] = [];
    shared.subscribe(() => {}, { onConnectionChange: (now) => late.push(now) });
    expect(late).toEqual([true]);
    expect(streams).toHaveLength(1);
  });

  it('keeps the stream while screens change, and closes it a while after the last listener leaves', () => {
    vi.useFakeTimers();
    try {
      const { client, streams } = countingClient();
      const shared = withSharedLiveEvents(client, 1_000);
      const leave = shared.subscribe(() => {});
      leave();
      const next = shared.subscribe(() => {});
      vi.advanceTimersByTime(5_000);
      expect(streams).toHaveLength(1);
      expect(streams[0]!.closed).toBe(false);
      next();
      next(); // twice: no effect
      vi.advanceTimersByTime(999);
      expect(streams[0]!.closed).toBe(false);
      vi.advanceTimersByTime(1);
      expect(streams[0]!.closed).toBe(true);
      shared.subscribe(() => {});
      expect(streams).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
