import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RefusalEventView, StoreChangeView } from '../../src-server/admin/contract';
import { createSseParser, type SseMessage } from '../../src-server/admin/sse-parser';
import { createLiveEventRelay } from '../../src-main/live-events';
import type { LiveEventRelay } from '../../src-main/live-events';

describe('createSseParser', () => {
  function parse(chunks: string[]): SseMessage[] {
    const parser = createSseParser();
    return chunks.flatMap((chunk): SseMessage[] => parser.push(chunk));
  }

  it('reads event, data and id, and dispatches on a blank line', () => {
    expect(parse(['event: statement\nid: 7\ndata: {"a":1}\n\n'])).toEqual([{ event: 'statement', data: '{"a":1}', id: '7' }]);
  });

  it('joins multi-line data, strips one leading space only, and defaults the event to message', () => {
    expect(parse(['data:  two\ndata:three\n\n'])).toEqual([{ event: 'message', data: ' two\nthree' }]);
  });

  it('accepts CRLF and CR line ends, even split between chunks', () => {
    // A CR that ends a chunk may be half of a CRLF: it is settled by the next chunk (here a comment).
    expect(parse(['event: a\r', '\ndata: 1\r\n\r', '\nevent: b\rdata: 2\r\r', ': ping\n'])).toEqual([
      { event: 'a', data: '1' },
      { event: 'b', data: '2' },
    ]);
  });

  it('survives chunks split anywhere, ignores comments and events without data', () => {
    const text = ': keep-alive\n\nevent: statement\ndata: {"x":"é"}\n\n';
    expect(parse(text.split(''))).toEqual([{ event: 'statement', data: '{"x":"é"}' }]);
  });

  it('does not dispatch an unfinished event', () => {
    expect(parse(['event: statement\ndata: 1\n'])).toEqual([]);
  });
});

const EVENT = (seq: number, store = 'demo'): StoreChangeView => ({ store, toSeq: seq, count: 1 });

/** An SSE endpoint under the test's control. */
async function eventServer(token: string) {
  const streams: ServerResponse[] = [];
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request);
    if (request.url !== '/admin/api/events') return void response.writeHead(404).end();
    if (request.headers.authorization !== `Bearer ${token}`) return void response.writeHead(401).end();
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    response.write(': hello\n\n');
    streams.push(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    streams,
    requests,
    send(event: StoreChangeView, id?: number) {
      streams.at(-1)?.write(`${id !== undefined ? `id: ${id}\n` : ''}event: change\ndata: ${JSON.stringify(event)}\n\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of streams) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('live event relay', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  function relayInto(received: StoreChangeView[]): LiveEventRelay {
    const relay = createLiveEventRelay({ emit: (e) => received.push(e), initialBackoffMs: 10, maxBackoffMs: 50 });
    cleanups.push(() => relay.stop());
    return relay;
  }

  it('relays the Store change events of the followed connection with its admin token', async () => {
    const server = await eventServer('tok-a');
    cleanups.push(server.close);
    const received: StoreChangeView[] = [];
    relayInto(received).follow({ url: server.url, token: 'tok-a' });
    await vi.waitFor(() => expect(server.streams).toHaveLength(1));
    server.send(EVENT(1));
    server.streams[0]?.write('event: other\ndata: {}\n\nevent: change\ndata: not json\n\nevent: change\ndata: {"toSeq":"x"}\n\nevent: statement\ndata: {"store":"demo","seq":3}\n\n');
    server.send(EVENT(2));
    await vi.waitFor(() => expect(received).toEqual([EVENT(1), EVENT(2)]));
    expect(server.requests[0]?.headers.accept).toBe('text/event-stream');
  });

  it('relays refused-request events on their own, and ignores ones that break the contract', async () => {
    const server = await eventServer('tok-r');
    cleanups.push(server.close);
    const statements: StoreChangeView[] = [];
    const refusals: RefusalEventView[] = [];
    const relay = createLiveEventRelay({ emit: (e) => statements.push(e), emitRefusal: (e) => refusals.push(e), initialBackoffMs: 10, maxBackoffMs: 50 });
    cleanups.push(() => relay.stop());
    relay.follow({ url: server.url, token: 'tok-r' });
    await vi.waitFor(() => expect(server.streams).toHaveLength(1));
    const refusal: RefusalEventView = { store: 'demo', id: 3, status: 401, code: 'unauthenticated', at: '2026-11-25T05:00:00.000Z' };
    server.streams[0]?.write(`event: refusal\ndata: ${JSON.stringify(refusal)}\n\nevent: refusal\ndata: {"id":"x"}\n\n`);
    server.send(EVENT(1));
    await vi.waitFor(() => expect(statements).toEqual([EVENT(1)]));
    expect(refusals).toEqual([refusal]);
  });

  it('reconnects after the stream drops, with the last event id, and says when it is down and up', async () => {
    const server = await eventServer('tok');
    cleanups.push(server.close);
    const received: StoreChangeView[] = [];
    const states: boolean[] = [];
    const relay = createLiveEventRelay({ emit: (e) => received.push(e), emitConnected: (c) => states.push(c), initialBackoffMs: 10, maxBackoffMs: 50 });
    cleanups.push(() => relay.stop());
    relay.follow({ url: server.url, token: 'tok' });
    await vi.waitFor(() => expect(server.streams).toHaveLength(1));
    server.send(EVENT(1), 41);
    await vi.waitFor(() => expect(received).toHaveLength(1));
    server.streams[0]?.end();
    await vi.waitFor(() => expect(server.streams).toHaveLength(2));
    expect(server.requests[1]?.headers['last-event-id']).toBe('41');
    server.send(EVENT(2));
    await vi.waitFor(() => expect(received.map((e) => e.toSeq)).toEqual([1, 2]));
    expect(states).toEqual([true, false, true]);
    expect(relay.connected()).toBe(true);
    relay.stop();
    expect(states.at(-1)).toBe(false);
  });

  it('keeps retrying a service that refuses or is down, and connects once it answers', async () => {
    const server = await eventServer('right');
    cleanups.push(server.close);
    const relay = relayInto([]);
    relay.follow({ url: server.url, token: 'wrong' });
    await vi.waitFor(() => expect(server.requests.length).toBeGreaterThanOrEqual(3));
    expect(server.streams).toHaveLength(0);
    relay.follow({ url: server.url, token: 'right' });
    await vi.waitFor(() => expect(server.streams).toHaveLength(1));
  });

  it('switches to another connection and stops following the first one', async () => {
    const first = await eventServer('a');
    const second = await eventServer('b');
    cleanups.push(first.close, second.close);
    const received: StoreChangeView[] = [];
    const relay = relayInto(received);
    relay.follow({ url: first.url, token: 'a' });
    await vi.waitFor(() => expect(first.streams).toHaveLength(1));
    relay.follow({ url: second.url, token: 'b' });
    await vi.waitFor(() => expect(second.streams).toHaveLength(1));
    await vi.waitFor(() => expect(first.streams[0]?.closed || first.streams[0]?.destroyed).toBe(true));
    first.send(EVENT(1, 'first'));
    second.send(EVENT(2, 'second'));
    await vi.waitFor(() => expect(received.map((e) => e.store)).toEqual(['second']));
    expect(relay.following()).toBe(second.url);
  });

  it('keeps the same stream when told to follow the same target again, and none after stop', async () => {
    const server = await eventServer('t');
    cleanups.push(server.close);
    const relay = relayInto([]);
    relay.follow({ url: server.url, token: 't' });
    await vi.waitFor(() => expect(server.streams).toHaveLength(1));
    relay.follow({ url: server.url, token: 't' });
    relay.stop();
    expect(relay.following()).toBeUndefined();
    await vi.waitFor(() => expect(server.streams[0]?.closed).toBe(true));
    expect(server.requests).toHaveLength(1);
  });
});
