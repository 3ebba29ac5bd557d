/**
 * An incremental parser of the text/event-stream format (HTML Living Standard, "Server-sent
 * events", parsing an event stream), for the live events of `/admin/api/events`. Both the desktop
 * main process and the web console read that stream with fetch (EventSource sends no
 * Authorization header), so both use this one parser. No Node imports: the renderer bundles it.
 *
 * Lines end in CRLF, LF or CR; `field: value` lines; a blank line dispatches; lines starting with
 * `:` are comments (keep-alives). Chunks may split lines and events anywhere; `push` returns the
 * events the chunk completed.
 */

/** One server-sent event: the `event:` name (default "message") and its joined `data:` lines. */
export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

export function createSseParser(): { push(chunk: string): SseMessage[] } {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  return {
    push(chunk) {
      buffer += chunk;
      const messages: SseMessage[] = [];
      const lineEnd = /\r\n|\r|\n/g;
      let start = 0;
      let newline: RegExpExecArray | null;
      while ((newline = lineEnd.exec(buffer)) !== null) {
        // A lone \r at the very end may be the first half of \r\n: wait for the next chunk.
        if (newline[0] === '\r' && newline.index === buffer.length - 1) break;
        const line = buffer.slice(start, newline.index);
        start = newline.index + newline[0].length;
        if (line === '') {
          if (data.length > 0) messages.push({ event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (name === 'event') event = value;
        else if (name === 'data') data.push(value);
        // The standard ignores an id holding NUL.
        else if (name === 'id' && !value.includes('\0')) id = value;
      }
      buffer = buffer.slice(start);
      return messages;
    },
  };
}
