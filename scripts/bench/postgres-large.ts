/**
 * `tsx scripts/bench/postgres-large.ts --database-url postgres://… [--statements N] [--seconds N] [--connections N]`
 *
 * GET /statements filtered by agent, activity and verb (limit 50) at a large Store on PostgreSQL:
 * p50/p95/p99 and CPU per request in the service and in PostgreSQL, one service process;
 * `--connections` (default the scenarios' 10): fewer show the latency without queueing for CPU.
 * `--main <out/server/main.js>` measures another build (an earlier commit's) on the same Store; an
 * earlier build refuses a database a later one has migrated.
 *
 * The Store is built once and kept (database `lore_bench_large` on the server the URL names; drop
 * it by hand): 20,000 of the benchmark's statements written through the service, then copied in
 * SQL, with new ids and seqs and their index postings, up to --statements (default 1,000,000). The
 * copies repeat the same learners, Activities and verbs, so a filter's rows grow with the Store as
 * in real data, and its queries walk the same indexes.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { postmasterPid } from './postgres-cpu';
import { createStore, measure, SLUG } from './postgres';
import { preload } from './read-store';
import { ADMIN_TOKEN, startServiceProcess, type Child } from './processes';
import { scenarios, type StoreContext } from './scenarios';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    statements: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string' },
    main: { type: 'string' },
  },
});
const serverUrl = args['database-url'];
if (!serverUrl) throw new Error('--database-url postgres://… is required');
const target = Number(args.statements);
const BASE = 20_000;
const NAME = 'lore_bench_large';
const log = (message: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${message}`);

const url = new URL(serverUrl);
url.pathname = `/${NAME}`;
const databaseUrl = url.toString();

async function withClient<T>(connection: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: connection });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function withService<T>(work: (service: Child) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-large-'));
  const service = await startServiceProcess({ dataDir, env: { LRS_DATABASE_URL: databaseUrl }, ...(args.main ? { main: args.main } : {}) });
  try {
    return await work(service);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Copies the first BASE statements (and their postings) until the Store holds `target`. */
async function copyUp(client: pg.Client): Promise<void> {
  const [{ top }] = (await client.query<{ top: string }>('SELECT max(seq) AS top FROM statements')).rows as [{ top: string }];
  const base = Number(top);
  const [{ count }] = (await client.query<{ count: string }>('SELECT count(*) AS count FROM statements')).rows as [{ count: string }];
  for (let copy = Math.floor(Number(count) / BASE); copy * BASE < target; copy++) {
    if (copy === 0) continue;
    const offset = copy * base;
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO statements (store_num, seq, statement_id, statement, signature, stored, stored_ms, key_id, verb_id, registration,
         voided, voids_statement_id, target_statement_id, received, lrs_added, warnings)
       SELECT store_num, seq + $1, statement_id || '.' || $2, statement, signature, stored, stored_ms, key_id, verb_id, registration,
         voided, voids_statement_id, target_statement_id, received, lrs_added, warnings FROM statements WHERE seq <= $3`,
      [offset, copy, base],
    );
    await client.query('INSERT INTO term_postings (store_num, term, seq, is_primary) SELECT store_num, term, seq + $1, is_primary FROM term_postings WHERE seq <= $2', [offset, base]);
    await client.query("SELECT setval('record_seq', $1)", [offset + base]);
    await client.query('COMMIT');
    if (copy % 10 === 0) log(`copied up to ${((copy + 1) * BASE).toLocaleString('en-US')} statements`);
  }
  log('VACUUM ANALYZE');
  await client.query('VACUUM ANALYZE');
}

const exists = await withClient(serverUrl, async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [NAME])).rowCount! > 0);
if (!exists) {
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${NAME}`));
  await withService(async (service) => {
    const ctx = await createStore(service.url);
    log(`writing ${BASE.toLocaleString('en-US')} statements through the service`);
    await preload([service.url], ctx, BASE, 1);
  });
}
await withClient(databaseUrl, copyUp);
const postmaster = await postmasterPid(serverUrl);
await withService(async (service) => {
  const key = await fetch(`${service.url}/admin/api/stores/${SLUG}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `large-${Date.now()}` }),
  });
  if (!key.ok) throw new Error(`create a key: ${key.status} ${await key.text()}`);
  const ctx: StoreContext = { slug: SLUG, authorization: `Basic ${((await key.json()) as { basic: string }).basic}`, adminToken: ADMIN_TOKEN, knownIds: [] };
  const count = await withClient(databaseUrl, async (client) => Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM statements')).rows[0]!.n));
  const connections = args.connections === undefined ? null : Number(args.connections);
  console.log(`\n== GET /statements on PostgreSQL, ${count.toLocaleString('en-US')} statements, 1 process, ${args.seconds} s per run${connections === null ? '' : `, ${connections} connection(s)`} ==`);
  for (const each of scenarios(ctx, 2).filter((s) => ['get-agent', 'get-activity', 'get-verb'].includes(s.name))) {
    const scenario = connections === null ? each : { ...each, connections };
    await measure([service], scenario, 2, postmaster); // warm the caches
    const m = await measure([service], scenario, Number(args.seconds), postmaster);
    console.log(
      `${scenario.label.padEnd(26)} ${m.requestsPerSec.toFixed(0).padStart(6)} req/s  p50 ${m.p50.toFixed(1)} ms  p95 ${m.p95.toFixed(1)} ms  p99 ${m.p99.toFixed(1)} ms  ` +
        `Node ${m.nodeMicrosPerRequest?.toFixed(0) ?? '-'} µs  PostgreSQL ${m.postgresMicrosPerRequest?.toFixed(0) ?? '-'} µs per request${m.non2xx ? `  ${m.non2xx} non-2xx` : ''}`,
    );
  }
});
