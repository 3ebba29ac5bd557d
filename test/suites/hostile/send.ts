/**
 * Sends a generated request and reports the status the service answered (or how the connection
 * ended without one). Well-formed requests go through node:http with a keep-alive agent; the rest
 * (bad methods, duplicate or control-byte headers, wrong framing) over a bare socket.
 */
import http from 'node:http';
import net from 'node:net';
import type { HostileRequest } from './generator';

export interface Outcome {
  status: number | null;
  /** Why there was no status: 'reset', 'timeout', 'refused', … */
  error?: string;
  /** The first bytes of the answer body, for the report of a failure. */
  preview?: string;
}

const TIMEOUT_MS = 10_000;

export function sendHttp(agent: http.Agent, base: URL, request: HostileRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of request.headers) {
      const existing = headers[name];
      headers[name] = existing === undefined ? value : ([] as string[]).concat(existing, value);
    }
    // node:http frames a GET or HEAD body only when told its length; unframed, the body would be
    // read as the next request on the connection.
    if (request.body !== null && headers['content-length'] === undefined) headers['content-length'] = String(request.body.length);
    let settled = false;
    const done = (outcome: Outcome) => {
      if (!settled) {
        settled = true;
        resolve(outcome);
      }
    };
    let req: http.ClientRequest;
    try {
      req = http.request({ host: base.hostname, port: base.port, method: request.method, path: request.path, headers, agent, timeout: TIMEOUT_MS });
    } catch (error) {
      // node:http refused to write it (an invalid header value): send it over a bare socket instead.
      void sendRaw(base, request).then(done);
      void error;
      return;
    }
    req.on('response', (res) => {
      const status = res.statusCode ?? null;
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        res.destroy();
        return done({ status });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < 2048) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => done({ status, preview: Buffer.concat(chunks).toString('utf8').slice(0, 500) }));
      res.on('error', () => done({ status }));
      res.on('close', () => done({ status, error: 'answer cut off' }));
    });
    req.on('close', () => done({ status: null, error: 'closed without an answer' }));
    req.on('timeout', () => {
      req.destroy();
      done({ status: null, error: 'timeout' });
    });
    req.on('error', (error: NodeJS.ErrnoException) => done({ status: null, error: error.code ?? error.message }));
    if (request.body !== null) req.end(request.body);
    else req.end();
  });
}

export function sendRaw(base: URL, request: HostileRequest): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: base.hostname, port: Number(base.port) });
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    const statusOf = () => {
      // The final answer's status: interim 1xx answers (100 Continue) come first.
      const head = Buffer.concat(chunks).toString('latin1');
      const statuses = [...head.matchAll(/(?:^|\r\n)HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
      return statuses.find((status) => status >= 200) ?? statuses[0] ?? null;
    };
    socket.setTimeout(TIMEOUT_MS, () => done({ status: statusOf(), error: 'timeout' }));
    socket.on('connect', () => {
      const hasLength = request.headers.some(([name]) => name === 'content-length' || name === 'transfer-encoding');
      const lines = [`${request.method} ${request.path} HTTP/1.1`, `host: ${base.host}`, 'connection: close'];
      for (const [name, value] of request.headers) if (name !== 'host' || value !== '') lines.push(`${name}: ${value}`);
      if (!hasLength && request.body !== null) lines.push(`content-length: ${request.body.length}`);
      socket.write(Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'));
      if (request.body !== null) socket.write(request.body);
      // When the framing promises more than follows, a half close makes the server see the end
      // instead of a pause. Otherwise the socket stays open: Node drops a request whose client
      // half-closed before its (asynchronous) answer was written.
      const declared = Number(request.headers.find(([name]) => name === 'content-length')?.[1] ?? NaN);
      const chunked = request.headers.some(([name]) => name === 'transfer-encoding');
      if (chunked || (request.body !== null && declared > request.body.length)) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const head = Buffer.concat(chunks).toString('latin1');
      if (/content-type: text\/event-stream/i.test(head)) done({ status: statusOf() });
    });
    socket.on('end', () => {
      const status = statusOf();
      done(status === null ? { status, error: 'closed without an answer' } : { status, preview: Buffer.concat(chunks).toString('utf8').slice(0, 700) });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => done({ status: statusOf(), error: error.code ?? error.message }));
  });
}
