/**
 * What forwarding costs and how fast it goes (docs/forwarding.md), on the embedded database (or
 * PostgreSQL with --database-url): a real service in this process, a webhook receiver on a real
 * socket beside it.
 *
 * 1. ingestion: statements POSTed in batches of 10 on 4 connections, without a forwarder and with
 *    one, and how far behind the forwarder is when the load stops;
 * 2. backlog: a forwarder created `from: beginning` over the Store's statements: how long until
 *    the receiver has them all.
 *
 *   npx tsx scripts/bench/forwarding.ts [--statements 20000] [--database-url postgres://…]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startService } from '../../src-server/service/service';

const TOKEN = 'bench-admin-token-0123456789abcdef';
const { values } = parseArgs({ options: { statements: { type: 'string', default: '20000' }, 'database-url': { type: 'string' } } });
const COUNT = Number(values.statements);

async function main(): Promise<void> {
  let received = 0;
  const receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received += (JSON.parse(body) as { statements: unknown[] }).statements.length;
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-forwarding-'));
  const database = values['database-url'] ? { database: { url: values['database-url'], poolSize: 10, statementTimeoutMs: 30_000 } } : {};
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: TOKEN, ...database });
  const admin = async (path: string, body?: unknown) => {
    const response = await fetch(`${service.url}/admin/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  /** A new Store and key, for `load`. */
  const storeWithKey = async (slug: string): Promise<string> => {
    await admin('/stores', { slug, name: slug });
    return ((await admin(`/stores/${slug}/keys`, { name: 'bench' })) as { basic: string }).basic;
  };
  /** `count` statements in batches of 10 on 4 connections; resolves with the time taken. */
  const load = async (slug: string, basic: string, count: number): Promise<number> => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < count) {
          next += 10;
          const batch = Array.from({ length: 10 }, (_, i) => ({
            id: randomUUID(),
            actor: { mbox: `mailto:learner${i}@example.com` },
            verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
            object: { id: `http://example.com/activities/${next + i}` },
          }));
          const response = await fetch(`${service.url}/${slug}/xAPI/statements`, {
            method: 'POST',
            headers: { authorization: `Basic ${basic}`, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
            body: JSON.stringify(batch),
          });
          if (response.status !== 200) throw new Error(`POST: ${response.status}`);
        }
      }),
    );
    return performance.now() - started;
  };
  const until = async (count: number, started = performance.now()): Promise<number> => {
    while (received < count) await new Promise((resolve) => setTimeout(resolve, 5));
    return performance.now() - started;
  };
  const rate = (count: number, ms: number) => `${Math.round((count / ms) * 1000)} statements/s`;

  try {
    const plainMs = await load('plain', await storeWithKey('plain'), COUNT);
    console.log(`ingestion without a forwarder: ${COUNT} in ${Math.round(plainMs)} ms (${rate(COUNT, plainMs)})`);

    const basic = await storeWithKey('forwarded');
    await admin('/stores/forwarded/forwarders', { kind: 'webhook', url: hook, secret: 'bench-secret-0123456789' });
    const withMs = await load('forwarded', basic, COUNT);
    const behind = COUNT - received;
    const lagMs = await until(COUNT);
    console.log(
      `ingestion with a webhook forwarder: ${COUNT} in ${Math.round(withMs)} ms (${rate(COUNT, withMs)}); ` +
        `${behind} not yet delivered when the load stopped, all delivered ${Math.round(lagMs)} ms later`,
    );

    received = 0;
    const backlogStarted = performance.now();
    await admin('/stores/plain/forwarders', { kind: 'webhook', url: hook, secret: 'bench-secret-0123456789', from: 'beginning' });
    const backlogMs = await until(COUNT, backlogStarted);
    console.log(`backlog of ${COUNT} (from: beginning): delivered in ${Math.round(backlogMs)} ms (${rate(COUNT, backlogMs)})`);
  } finally {
    await service.stop();
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
