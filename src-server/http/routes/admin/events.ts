/**
 * /admin/api/events: live events as server-sent events, all Stores or `?store=<slug>`: `change`
 * (a Store's statements changed, coalesced; contract's storeChangeSchema), `refusal`, and with
 * `?detail=statements` a `statement` per statement. The console reads the stream with fetch
 * (EventSource cannot send the Authorization header), so it is an ordinary admin request.
 *
 * A stream that comes back with `Last-Event-ID` (the `toSeq` of the last change it read) is told
 * at once of every Store that changed since, so a client misses nothing across a drop; clients
 * also ask again for what they show when their stream comes back.
 *
 * A comment line every 15 s keeps proxies and the client from timing the stream out and lets a
 * client notice a dead connection. A client that stops reading is disconnected once its buffer
 * passes a bound (it reconnects and reloads) rather than growing the service's memory.
 */
import type { FastifyInstance } from 'fastify';
import { liveEventsQuerySchema } from '../../../admin/contract';
import { changeFrame, type LiveEventBus } from '../../../admin/live-events';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

const HEARTBEAT_MS = 15_000;
/** Bytes a client may leave unread before it is disconnected (about 4,000 events). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

export interface EventRouteOptions extends AdminRouteDeps {
  /** The service's live events (admin/live-events.ts). */
  events: LiveEventBus;
  heartbeatMs?: number;
  maxBufferedBytes?: number;
}

export default async function eventRoutes(app: FastifyInstance, options: EventRouteOptions): Promise<void> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const open = new Set<() => void>();
  // Open streams would keep the server from closing: end them when it stops.
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.get<{ Querystring: Record<string, unknown> }>('/events', async (request, reply) => {
    const { store, detail } = parseInput(liveEventsQuerySchema, request.query, 'query');
    const only = store === undefined ? undefined : await findStoreOr404(options.storage, store);
    const lastEventId = lastEventIdOf(request.headers['last-event-id']);

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // The socket is not reused after the stream: closing it with the stream lets the service stop at once.
      connection: 'close',
      // nginx and similar proxies would otherwise buffer the stream.
      'x-accel-buffering': 'no',
    });
    res.write(': connected\n\n');

    let ended = false;
    const send = (chunk: string) => {
      if (ended) return;
      if (res.writableLength > maxBufferedBytes) {
        request.log.warn('live events: a client fell too far behind and was disconnected');
        end();
        res.destroy();
        return;
      }
      res.write(chunk);
    };
    const ofThisStream = (slug: string | null) => store === undefined || slug === store;
    // Frames are serialised once by the bus for every stream; each stream only picks its own.
    const unsubscribers = [
      options.events.subscribeFrames('change', ({ view, frame }) => ofThisStream(view.store) && send(frame)),
      options.events.subscribeFrames('refusal', ({ view, frame }) => ofThisStream(view.store) && send(frame)),
      ...(detail === 'statements' ? [options.events.subscribeFrames('statement', ({ view, frame }) => ofThisStream(view.store) && send(frame))] : []),
    ];
    const heartbeat = setInterval(() => send(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    function end(): void {
      if (ended) return;
      ended = true;
      for (const unsubscribe of unsubscribers) unsubscribe();
      clearInterval(heartbeat);
      open.delete(end);
      if (!res.writableEnded) res.end();
    }
    open.add(end);
    // The response closes when the client goes away (or the stream ended): stop listening then.
    res.on('close', end);

    // Subscribed first, then caught up: a change in between is told twice, never missed.
    if (lastEventId !== null) {
      const stores = only ? [only] : await options.storage.listStores();
      for (const candidate of stores) {
        const newest = await options.events.newestSeq(candidate.id);
        if (newest !== null && newest > lastEventId) send(changeFrame({ store: candidate.slug, toSeq: newest, count: null }).frame);
      }
    }
  });
}

/** The Last-Event-ID a reconnecting client sends: a change's seq; anything else is ignored. */
function lastEventIdOf(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}
