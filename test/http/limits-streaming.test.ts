/**
 * A body over the limit, streamed to a listening service over loopback: the 413 comes while the
 * client is still sending, so the service never reads (let alone holds) more than about the limit.
 * With Content-Length the refusal comes before the body is read; without it (chunked), at the
 * first chunk past the limit. Every body parser in use is covered: JSON, the raw document parser
 * and the multipart statements parser.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_DEFAULTS } from '../../src-server/limits/service-limits';
import { MULTIPART_TYPE } from './statement-requests';
import { buildTestApp, type CreatedKey, type TestApp } from './test-app';

const LIMIT = 1024 * 1024;
/** What the client would send if nobody stopped it. */
const WOULD_SEND = 256 * 1024 * 1024;
/** The most the client may have sent before the answer: the limit plus socket buffers on both sides. */
const AT_MOST_SENT = 24 * 1024 * 1024;

let t: TestApp;
let key: CreatedKey;
let base: string;

beforeAll(async () => {
  t = await buildTestApp({ limits: { ...LIMIT_DEFAULTS, maxBodyBytes: LIMIT } });
  await t.createStore('demo');
  key = await t.createKey('demo');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

interface Streamed {
  status: number;
  body: string;
  /** Bytes of body the client had written when the answer came. */
  sent: number;
}

/** Streams up to WOULD_SEND bytes, respecting backpressure, and stops as soon as an answer arrives. */
function streamUntilAnswered(path: string, headers: Record<string, string | number>): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    let answered = false;
    const req = request(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Basic ${key.basic}`, 'x-experience-api-version': '1.0.3', ...headers },
    });
    req.on('response', (response) => {
      answered = true;
      const sentWhenAnswered = sent;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (text: string) => (body += text));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body, sent: sentWhenAnswered });
        req.destroy();
      });
    });
    // The service closes the connection after its answer; a write racing that close is expected.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < WOULD_SEND) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:ada@example.com' }));
const routes = [
  ['statements (JSON parser)', '/demo/xAPI/statements', 'application/json'],
  ['a State document (raw bytes parser)', `/demo/xAPI/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=${agent}&stateId=s`, 'application/octet-stream'],
  ['statements with attachments (multipart parser)', '/demo/xAPI/statements', MULTIPART_TYPE],
  ['the earlier /xapi address', '/xapi/statements', 'application/json'],
] as const;

describe('a body over the limit, streamed', () => {
  it.each(routes)('to %s with a Content-Length over the limit is refused before it is read', async (_name, path, contentType) => {
    const answer = await streamUntilAnswered(path, { 'content-type': contentType, 'content-length': WOULD_SEND });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
    expect(answer.sent).toBeLessThan(AT_MOST_SENT);
  });

  it.each(routes)('to %s without Content-Length is refused at the first chunk past the limit', async (_name, path, contentType) => {
    const answer = await streamUntilAnswered(path, { 'content-type': contentType, 'transfer-encoding': 'chunked' });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(answer.sent).toBeGreaterThan(LIMIT);
    expect(answer.sent).toBeLessThan(AT_MOST_SENT);
  });

  it('leaves the service answering the next request', async () => {
    const response = await fetch(`${base}/demo/xAPI/about`);
    expect(response.status).toBe(200);
  });
});
