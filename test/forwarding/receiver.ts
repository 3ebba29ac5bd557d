/**
 * A destination for forwarding tests: a real HTTP server on a real socket that records every batch
 * it is sent, checks webhook signatures, and can answer an error, or be down (not listening) for a while.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedBatch {
  ids: string[];
  /** The Lore-Signature header checked out with the secret, within five minutes. */
  signed: boolean;
  headers: IncomingMessage['headers'];
  body: string;
}

export class TestReceiver {
  /** The batches acknowledged (answered 2xx). */
  readonly batches: ReceivedBatch[] = [];
  /** Every batch that arrived, answered or not. */
  readonly arrived: ReceivedBatch[] = [];
  /** What to answer: a status (2xx acknowledges), a function of the batch, or `hang`: no answer at all. */
  answer: number | 'hang' | ((batch: ReceivedBatch) => number) = 200;
  private server: Server | null = null;
  private port = 0;

  constructor(private readonly secret: string | null = null) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async up(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const parsed = JSON.parse(body) as { statements: Array<{ id: string }> } | Array<{ id: string }>;
        const statements = Array.isArray(parsed) ? parsed : parsed.statements;
        const batch: ReceivedBatch = { ids: statements.map((s) => s.id), signed: this.checkSignature(request, body), headers: request.headers, body };
        this.arrived.push(batch);
        if (this.answer === 'hang') return;
        const status = typeof this.answer === 'number' ? this.answer : this.answer(batch);
        if (status >= 200 && status < 300) this.batches.push(batch);
        response.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{}' : '{"error":"not now"}');
      });
    });
    server.keepAliveTimeout = 100;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening: connections are refused until `up` (on the same port). */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Every statement id received (acknowledged batches), in arrival order. */
  get ids(): string[] {
    return this.batches.flatMap((batch) => batch.ids);
  }

  private checkSignature(request: IncomingMessage, body: string): boolean {
    const header = request.headers['lore-signature'];
    if (this.secret === null || typeof header !== 'string') return false;
    const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
    if (!match) return false;
    const t = Number(match[1]);
    if (Math.abs(Date.now() / 1000 - t) > 300) return false; // a replay of an old batch is refused
    const expected = createHmac('sha256', this.secret).update(`${match[1]}.${body}`).digest();
    return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
  }
}

/**
 * The ids in order with each id's first arrival kept, and whether the copies are only re-sends of
 * one batch (a batch that was not acknowledged, sent again whole).
 */
export function firstArrivals(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return ids.filter((id) => (seen.has(id) ? false : (seen.add(id), true)));
}

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
