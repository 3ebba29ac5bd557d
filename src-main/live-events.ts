/**
 * Relays the active connection's live events (`GET /admin/api/events`, server-sent events) to the
 * console. The renderer cannot open that stream itself: EventSource sends no Authorization
 * header, and the admin token never leaves the main process. So main reads the stream with
 * fetch, validates each `change` event (a Store's statements changed) against the contract's
 * `storeChangeSchema`, and hands it on; the stream is reopened with backoff when it drops, with the
 * last change's id (Last-Event-ID), so the service tells at once what changed meanwhile; it is
 * replaced when the connection changes.
 */
import { storeChangeSchema, refusalEventSchema } from '../src-server/admin/contract';
import type { StoreChangeView, RefusalEventView } from '../src-server/admin/contract';
import { createSseParser, type SseMessage } from '../src-server/admin/sse-parser';
import { adminApiUrl } from './admin-forwarder';
import type { AdminTarget, FetchLike } from './admin-forwarder';

export interface LiveEventRelayOptions {
  fetch?: FetchLike;
  emit(event: StoreChangeView): void;
  /** Refused requests logged (`event: refusal`), validated against the contract likewise. */
  emitRefusal?(event: RefusalEventView): void;
  /** Told when the stream comes up or goes down (the console shows "Live" or "Reconnecting…"). */
  emitConnected?(connected: boolean): void;
  log?: (message: string) => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface LiveEventRelay {
  /** Follows `target`'s events from now on (undefined: none); a same target keeps its stream. */
  follow(target: AdminTarget | undefined): void;
  stop(): void;
  /** For tests and status: the URL currently followed. */
  following(): string | undefined;
  /** Whether the followed stream is up now. */
  connected(): boolean;
}

export function createLiveEventRelay(options: LiveEventRelayOptions): LiveEventRelay {
  const fetchImpl = options.fetch ?? fetch;
  const log = options.log ?? (() => {});
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 15_000;

  let current: { target: AdminTarget; abort: AbortController; timer?: ReturnType<typeof setTimeout> } | undefined;
  let up = false;
  const setUp = (now: boolean) => {
    if (now === up) return;
    up = now;
    options.emitConnected?.(now);
  };

  async function run(session: NonNullable<typeof current>): Promise<void> {
    let failures = 0;
    let lastEventId: string | undefined;
    while (!session.abort.signal.aborted) {
      try {
        const response = await fetchImpl(adminApiUrl(session.target.url, '/events'), {
          headers: {
            authorization: `Bearer ${session.target.token}`,
            accept: 'text/event-stream',
            ...(lastEventId !== undefined && { 'last-event-id': lastEventId }),
          },
          signal: session.abort.signal,
        });
        if (!response.ok || !response.body) {
          await response.body?.cancel().catch(() => {});
          throw new Error(`HTTP ${response.status}`);
        }
        const relay = (message: SseMessage): void => {
          if (message.id !== undefined) lastEventId = message.id;
          if (message.event !== 'change' && message.event !== 'refusal') return;
          let json: unknown;
          try {
            json = JSON.parse(message.data);
          } catch {
            log('live events: an event that is not JSON was ignored');
            return;
          }
          if (message.event === 'refusal') {
            const refusal = refusalEventSchema.safeParse(json);
            if (refusal.success) options.emitRefusal?.(refusal.data);
            else log('live events: a refusal event that does not match the contract was ignored');
            return;
          }
          const parsed = storeChangeSchema.safeParse(json);
          if (parsed.success) options.emit(parsed.data);
          else log('live events: an event that does not match the contract was ignored');
        };
        const parser = createSseParser();
        const decoder = new TextDecoder();
        failures = 0;
        setUp(true);
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          parser.push(decoder.decode(chunk, { stream: true })).forEach(relay);
        }
        if (session.abort.signal.aborted) return;
        log('live events: the stream ended; reconnecting');
      } catch (error) {
        if (session.abort.signal.aborted) return;
        failures += 1;
        log(`live events: ${error instanceof Error ? error.message : String(error)}; retrying`);
      }
      setUp(false);
      const delay = Math.min(maxBackoffMs, initialBackoffMs * 2 ** Math.max(0, failures - 1));
      await new Promise<void>((resolve) => {
        session.timer = setTimeout(resolve, delay);
        session.abort.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      clearTimeout(session.timer);
    }
  }

  function stop(): void {
    if (!current) return;
    clearTimeout(current.timer);
    current.abort.abort();
    current = undefined;
    setUp(false);
  }

  return {
    follow(target) {
      if (current && target && current.target.url === target.url && current.target.token === target.token) return;
      stop();
      if (!target) return;
      const session = { target, abort: new AbortController() };
      current = session;
      void run(session);
    },
    stop,
    following: () => current?.target.url,
    connected: () => up,
  };
}
