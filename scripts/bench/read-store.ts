/**
 * The bench Store the read measurements use (reads.ts, reads-ab.ts): created when missing, with a
 * new key each run (the secret of an earlier run's key is not kept).
 */
import { ADMIN_TOKEN } from './processes';
import type { StoreContext } from './scenarios';

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
