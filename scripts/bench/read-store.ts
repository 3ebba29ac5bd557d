/**
 * The bench Store the read and start-up measurements use (reads.ts, reads-ab.ts, startup.ts):
 * created when missing, with a new key each run (the secret of an earlier run's key is not kept);
 * and the preload of the bench's statements into a Store (also postgres.ts, postgres-large.ts).
 */
import { ADMIN_TOKEN } from './processes';
import type { StoreContext } from './scenarios';
import { statementGenerator } from './statements';

export const READ_SLUG = 'bench';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

export async function ok(response: Response, what: string): Promise<Response> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return response;
}

export async function storeContext(url: string): Promise<StoreContext> {
  const found = await fetch(`${url}/admin/api/stores/${READ_SLUG}`, { headers: admin });
  if (found.status === 404) {
    const body = JSON.stringify({ slug: READ_SLUG, name: 'Benchmark', environment: 'test' });
    await ok(await fetch(`${url}/admin/api/stores`, { method: 'POST', headers: admin, body }), 'create the Store');
  }
  const key = await ok(await fetch(`${url}/admin/api/stores/${READ_SLUG}/keys`, { method: 'POST', headers: admin, body: '{"name":"reads"}' }), 'create a key');
  return { slug: READ_SLUG, authorization: `Basic ${((await key.json()) as { basic: string }).basic}`, adminToken: ADMIN_TOKEN, knownIds: [] };
}

/**
 * `count` of the bench's statements (seed `seed`), batches of 1000, four requests in flight spread
 * over `urls`; keeps a sample of ids for GET by id. `progress` hears the statements stored so far.
 */
export async function preload(urls: string[], ctx: StoreContext, count: number, seed: number, progress?: (stored: number) => void): Promise<void> {
  const generator = statementGenerator(seed);
  let sent = 0;
  let stored = 0;
  const worker = async (i: number) => {
    while (sent < count) {
      const n = Math.min(1000, count - sent);
      sent += n;
      const response = await fetch(`${urls[i % urls.length]}/${ctx.slug}/xAPI/statements`, {
        method: 'POST',
        headers: { authorization: ctx.authorization, 'x-experience-api-version': '1.0.3', 'content-type': 'application/json' },
        body: JSON.stringify(Array.from({ length: n }, () => generator.next())),
      });
      const ids = (await (await ok(response, 'preload')).json()) as string[];
      if (ctx.knownIds.length < 20_000) ctx.knownIds.push(...ids.filter((_, k) => k % 25 === 0));
      stored += n;
      progress?.(stored);
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
}
