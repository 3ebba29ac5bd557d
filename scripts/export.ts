/**
 * `LRS_ADMIN_TOKEN=<token> npm run export -- --store <slug> [--format ndjson|csv] [--out file]
 *   [--url http://127.0.0.1:8411] [--agent …] [--verb …] [--activity …] [--registration …]
 *   [--status accepted|voided|rejected] [--since ISO] [--until ISO] [--warned]`
 *
 * Exports what an Explorer filter shows from a running Lore service, through its admin API
 * (GET /admin/api/stores/:slug/export): the service keeps serving, nothing needs stopping. Written
 * to stdout, or to --out (under `<out>.part` until it is whole). The filters take what the
 * Explorer's take: a name, an email address or agent JSON; a verb's or Activity's IRI or words.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { adminRequest, adminTokenOr, serviceBase } from './admin-api-command';

const USAGE =
  'usage: LRS_ADMIN_TOKEN=<token> npm run export -- --store <slug> [--format ndjson|csv] [--out file] [--url http://127.0.0.1:8411]\n' +
  '       [--agent …] [--verb …] [--activity …] [--registration …] [--status accepted|voided|rejected] [--since ISO] [--until ISO] [--warned]';

const FILTERS = ['agent', 'verb', 'activity', 'registration', 'status', 'since', 'until'] as const;

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({
      options: {
        url: { type: 'string' },
        store: { type: 'string' },
        format: { type: 'string' },
        out: { type: 'string' },
        warned: { type: 'boolean' },
        agent: { type: 'string' },
        verb: { type: 'string' },
        activity: { type: 'string' },
        registration: { type: 'string' },
        status: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const token = adminTokenOr(USAGE, 'the export');
  if (token === null) return 2;
  const store = values.store;
  if (typeof store !== 'string' || store === '') {
    console.error(`--store is required.\n${USAGE}`);
    return 2;
  }
  const base = serviceBase(values.url);
  const query = new URLSearchParams({ format: typeof values.format === 'string' ? values.format : 'ndjson' });
  for (const name of FILTERS) {
    const value = values[name];
    if (value !== undefined) query.set(name, value);
  }
  if (values.warned === true) query.set('warned', 'true');

  const answer = await adminRequest(base, `/stores/${encodeURIComponent(store)}/export?${query.toString()}`, { token }, 'the export');
  if (!answer.ok) {
    console.error(answer.message);
    return 1;
  }
  const body = Readable.fromWeb(answer.response.body as ReadableStream<Uint8Array>);
  const out = typeof values.out === 'string' ? values.out : undefined;
  if (out === undefined) {
    await pipeline(body, process.stdout);
    return 0;
  }
  const partial = `${out}.part`;
  try {
    await pipeline(body, createWriteStream(partial));
    await rename(partial, out);
  } catch (err) {
    await rm(partial, { force: true });
    console.error(`the export was cut short: ${(err as Error).message}`);
    return 1;
  }
  console.error(`export written to ${out}`);
  return 0;
}

process.exitCode = await main();
