/**
 * /admin/api/events: live events as server-sent events (`event: statement`, data per the
 * contract's liveEventSchema), all Stores or `?store=<slug>`. The console reads the stream with
 * fetch (EventSource cannot send the Authorization header), so it is an ordinary admin request.
 *
 * A comment line every 15 s keeps proxies and the client from timing the stream out and lets a
 * client notice a dead connection. A client that stops reading is disconnected once its buffer
 * passes a bound (it reconnects and reloads) rather than growing the service's memory.
 */
import type { FastifyInstance } from 'fastify';
import { liveEventsQuerySchema } from '../../../admin/contract';
import type { LiveEventBus } from '../../../admin/live-events';
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

  app.get('/events', async (request, reply) => {
    const { store } = parseInput(liveEventsQuerySchema, request.query, 'query');
    if (store !== undefined) await findStoreOr404(options.storage, store);

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
    const unsubscribe = options.events.subscribe((event) => {
      if (store !== undefined && event.store !== store) return;
      send(`event: statement\nid: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);
    });
    // Refused requests (refusal-recorder.ts): a Store's, or with no `store`, every log's.
    const unsubscribeRefusals = options.events.subscribeRefusals((event) => {
      if (store !== undefined && event.store !== store) return;
      send(`event: refusal\ndata: ${JSON.stringify(event)}\n\n`);
    });
    const heartbeat = setInterval(() => send(': heartbeat\n\n'), heartbeatMs);
    heartbeat.unref();
    function end(): void {
      if (ended) return;
      ended = true;
      unsubscribe();
      unsubscribeRefusals();
      clearInterval(heartbeat);
      open.delete(end);
      if (!res.writableEnded) res.end();
    }
    open.add(end);
    // The response closes when the client goes away (or the stream ended): stop listening then.
    res.on('close', end);
  });
}
