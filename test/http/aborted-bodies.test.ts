/**
 * A client that sends part of a body and then closes its connection, over a real socket: the
 * request fails ('aborted', ECONNRESET) while the body is being read, before it is read (the answer
 * came first: 415, 404, 413) or while a route reads it as a stream (the NDJSON import). None of it
 * may end the service or answer 500: the next request is answered as usual.
 */
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_DEFAULTS } from '../../src-server/limits/service-limits';
import { attachmentPart, MULTIPART_TYPE, multipartBody } from './statement-requests';
import { ADMIN_TOKEN, buildTestApp, type CreatedKey, type TestApp } from './test-app';

const LIMIT = 256 * 1024;

let t: TestApp;
let key: CreatedKey;
let port: number;
/** Every status of 500 or more the service set, on any request. */
const failures: number[] = [];

beforeAll(async () => {
  t = await buildTestApp({ limits: { ...LIMIT_DEFAULTS, maxBodyBytes: LIMIT } });
  await t.createStore('demo');
  key = await t.createKey('demo');
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  t.app.server.prependListener('request', (_request, response) => {
    response.on('close', () => {
      if (response.statusCode >= 500) failures.push(response.statusCode);
    });
  });
});
afterAll(() => t.close());

interface Cut {
  path: string;
  headers: Record<string, string>;
  /** The part of the body sent before the socket is destroyed (chunk framing added when chunked). */
  part: Buffer;
  chunked: boolean;
  /** Wait for the first bytes of an answer before destroying the socket (else a short pause). */
  awaitAnswer?: boolean;
  method?: string;
  /** How long to pause before destroying the socket (150 ms unless told). */
  pauseMs?: number;
}

/** Sends the head and part of the body, then destroys the socket; resolves with what came back. */
function sendAndCut(cut: Cut): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let answer = '';
    const finish = () => {
      socket.destroy();
      resolve(answer);
    };
    socket.on('error', reject);
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
      if (cut.awaitAnswer) finish();
    });
    socket.on('connect', () => {
      const lines = [`${cut.method ?? 'POST'} ${cut.path} HTTP/1.1`, `host: 127.0.0.1:${port}`];
      for (const [name, value] of Object.entries(cut.headers)) lines.push(`${name}: ${value}`);
      lines.push(cut.chunked ? 'transfer-encoding: chunked' : `content-length: ${cut.part.length + 1000}`);
      socket.write(lines.join('\r\n') + '\r\n\r\n');
      socket.write(cut.chunked ? Buffer.concat([Buffer.from(`${cut.part.length.toString(16)}\r\n`), cut.part, Buffer.from('\r\n')]) : cut.part);
      if (!cut.awaitAnswer) void sleep(cut.pauseMs ?? 150).then(finish);
    });
  });
}

async function serviceAnswers(): Promise<void> {
  // Let the service see the close, and any error it leads to, before asking it something.
  await sleep(50);
  const response = await fetch(`http://127.0.0.1:${port}/demo/xAPI/about`, { headers: { 'x-experience-api-version': '1.0.3' } });
  expect(response.status).toBe(200);
  expect(failures).toEqual([]);
}

const statement = JSON.stringify({
  actor: { mbox: 'mailto:ada@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
  object: { id: 'http://example.com/course' },
});
const xapi = () => ({ authorization: `Basic ${key.basic}`, 'x-experience-api-version': '1.0.3' });
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
/** Part of a JSON array of statements, cut short. */
const partOfJson = (bytes: number) => Buffer.from(`[${`${statement},`.repeat(Math.ceil(bytes / (statement.length + 1)))}`.slice(0, bytes));

describe('a client that closes its connection in the middle of its body', () => {
  for (const chunked of [true, false]) {
    const framing = chunked ? 'chunked' : 'with Content-Length';
    it(`JSON statements, under the limit, ${framing}`, async () => {
      await sendAndCut({ path: '/demo/xAPI/statements', headers: { ...xapi(), 'content-type': 'application/json' }, part: partOfJson(4000), chunked });
      await serviceAnswers();
    });

    it(`multipart statements, under the limit, ${framing}`, async () => {
      const whole = multipartBody([JSON.parse(statement)], [attachmentPart('x'.repeat(8000))]);
      await sendAndCut({ path: '/demo/xAPI/statements', headers: { ...xapi(), 'content-type': MULTIPART_TYPE }, part: whole.subarray(0, 5000), chunked });
      await serviceAnswers();
    });

    it(`an NDJSON import upload, ${framing}`, async () => {
      const lines = Buffer.from(`${statement}\n`.repeat(200));
      await sendAndCut({ path: '/admin/api/stores/demo/imports', headers: { ...admin, 'content-type': 'application/x-ndjson' }, part: lines.subarray(0, lines.length - 10), chunked });
      await serviceAnswers();
      // The cut-off upload is an import that failed, not one left running.
      await expect.poll(async () => {
        const list = await t.admin({ method: 'GET', url: '/admin/api/stores/demo/imports' });
        return (list.json() as { imports: { state: string }[] }).imports.map((job) => job.state).filter((state) => state !== 'failed');
      }).toEqual([]);
    });
  }

  // The route writes the zip to a file as it arrives: the cut-off body fails that copy.
  for (const chunked of [true, false]) {
    it(`a Test Bench package upload, ${chunked ? 'chunked' : 'with Content-Length'}`, async () => {
      await sendAndCut({ path: '/admin/api/stores/demo/packages', headers: { ...admin, 'content-type': 'application/zip' }, part: Buffer.alloc(64 * 1024, 0x50), chunked });
      await serviceAnswers();
      // Audited as the client's fault (the answer it did not stay for), not as a failure of the service.
      await expect.poll(async () => JSON.stringify((await t.admin({ method: 'GET', url: '/admin/api/audit' })).json())).toContain('invalid_body');
      expect(JSON.stringify((await t.admin({ method: 'GET', url: '/admin/api/audit' })).json())).not.toContain('internal_error');
    });
  }

  it('a chunked body over the limit: answered 413, then the client goes', async () => {
    const answer = await sendAndCut({ path: '/demo/xAPI/statements', headers: { ...xapi(), 'content-type': 'application/json' }, part: partOfJson(LIMIT + 64 * 1024), chunked: true, awaitAnswer: true });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    await serviceAnswers();
  });

  it('a chunked NDJSON import to a Store that does not exist: answered 404 unread, then the client goes', async () => {
    const answer = await sendAndCut({ path: '/admin/api/stores/nowhere/imports', headers: { ...admin, 'content-type': 'application/x-ndjson' }, part: Buffer.from(`${statement}\n`), chunked: true, awaitAnswer: true });
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
    await serviceAnswers();
  });

  it('a chunked body of a type no parser takes: answered 415 unread, then the client goes', async () => {
    const answer = await sendAndCut({ path: '/admin/api/stores', headers: { ...admin, 'content-type': 'text/x-nothing' }, part: Buffer.from('hello'), chunked: true, awaitAnswer: true });
    expect(answer).toMatch(/^HTTP\/1\.1 415/);
    await serviceAnswers();
  });

  it('a chunked body to a path that serves nothing', async () => {
    await sendAndCut({ path: '/nothing/here', headers: { 'content-type': 'application/json' }, part: partOfJson(1000), chunked: true });
    await serviceAnswers();
  });
});


// The case the hostile-input suite found: Fastify never reads the body of a GET, but the size check
// has wrapped it; the client goes while the answer is still being made. The route's storage read
// is held until the service has seen the connection close, so the close always lands in that window.
describe('a GET with a chunked body, cut off while its answer is being made', () => {
  for (const method of ['GET', 'HEAD']) {
    it(`${method}: the service stays up`, async () => {
      const activityId = 'http://example.com/held';
      const reached = resolvers();
      const release = resolvers();
      const findActivity = t.storage.findActivity.bind(t.storage);
      t.storage.findActivity = async (...args) => {
        reached.resolve();
        await release.promise;
        return findActivity(...args);
      };
      const closed = new Promise<void>((resolve) => t.app.server.once('request', (request: IncomingMessage) => request.socket.once('close', () => resolve())));
      try {
        const socket = connect({ host: '127.0.0.1', port });
        socket.on('error', () => {});
        await new Promise((resolve) => socket.once('connect', resolve));
        const head = [`${method} /demo/xAPI/activities?activityId=${encodeURIComponent(activityId)} HTTP/1.1`, `host: 127.0.0.1:${port}`, `authorization: Basic ${key.basic}`, 'x-experience-api-version: 1.0.3', 'transfer-encoding: chunked'];
        socket.write(`${head.join('\r\n')}\r\n\r\n10\r\n0123456789abcdef\r\n`);
        await reached.promise;
        socket.destroy();
        await closed;
        await sleep(20);
      } finally {
        release.resolve();
        t.storage.findActivity = findActivity;
      }
      await serviceAnswers();
    });
  }
});

function resolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}
