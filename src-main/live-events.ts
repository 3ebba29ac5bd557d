/**
 * Relays the active connection's live events (`GET /admin/api/events`, server-sent events) to the
 * console. The renderer cannot open that stream itself: EventSource sends no Authorization
 * header, and the admin token never leaves the main process. So main reads the stream with
 * fetch, validates each `statement` event against the contract's `liveEventSchema`, and hands it
 * on; the stream is reopened with backoff when it drops, and replaced when the connection changes.
 */
import { liveEventSchema } from '../src-server/admin/contract';
import type { LiveEventView } from '../src-server/admin/contract';
import { adminApiUrl } from './admin-forwarder';
import type { AdminTarget, FetchLike } from './admin-forwarder';

export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/**
 * An incremental parser for the text/event-stream format (HTML Living Standard, "Server-sent
 * events", §9.2.6): lines end in CRLF, LF or CR; `field: value` lines; a blank line dispatches;
 * lines starting with `:` are comments (keep-alives). Chunks may split anywhere.
 */
export function createSseParser(onMessage: (message: SseMessage) => void): { push(chunk: string): void } {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;

  function line(text: string): void {
    if (text === '') {
      if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n'), ...(id !== undefined && { id }) });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  return {
    push(chunk) {
      buffer += chunk;
      for (;;) {
        const match = /\r\n|\n|\r/.exec(buffer);
        // A lone CR at the very end may be the first half of CRLF: wait for the next chunk.
        if (!match || (match[0] === '\r' && match.index === buffer.length - 1)) return;
        line(buffer.slice(0, match.index));
        buffer = buffer.slice(match.index + match[0].length);
      }
    },
  };
}

export interface LiveEventRelayOptions {
  fetch?: FetchLike;
  emit(event: LiveEventView): void;
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
}

export function createLiveEventRelay(options: LiveEventRelayOptions): LiveEventRelay {
  const fetchImpl = options.fetch ?? fetch;
  const log = options.log ?? (() => {});
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 15_000;

  let current: { target: AdminTarget; abort: AbortController; timer?: ReturnType<typeof setTimeout> } | undefined;

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
        const parser = createSseParser((message) => {
          if (message.id !== undefined) lastEventId = message.id;
          if (message.event !== 'statement') return;
          let json: unknown;
          try {
            json = JSON.parse(message.data);
          } catch {
            log('live events: an event that is not JSON was ignored');
            return;
          }
          const parsed = liveEventSchema.safeParse(json);
          if (parsed.success) options.emit(parsed.data);
          else log('live events: an event that does not match the contract was ignored');
        });
        const decoder = new TextDecoder();
        failures = 0;
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          parser.push(decoder.decode(chunk, { stream: true }));
        }
        if (session.abort.signal.aborted) return;
        log('live events: the stream ended; reconnecting');
      } catch (error) {
        if (session.abort.signal.aborted) return;
        failures += 1;
        log(`live events: ${error instanceof Error ? error.message : String(error)}; retrying`);
      }
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
  };
}
