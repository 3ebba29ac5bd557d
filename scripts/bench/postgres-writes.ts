/**
 * `tsx scripts/bench/postgres-writes.ts --database-url postgres://… [--statements N]`
 *
 * The whole statement write path without HTTP (recordStatements) on PostgreSQL, as write-costs.ts
 * measures it on the embedded database: single statements from 10 writers at once, and batches of
 * 100 from 10 writers at once, into a fresh database on the server the URL names (its user needs
 * CREATEDB; the database is dropped after). Per statement: the service's CPU (this process),
 * PostgreSQL's CPU (that server's processes, read from /proc, when it runs on this machine), and
 * the queries sent (round trips).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { LiveEventBus } from '../../src-server/admin/live-events';
import { recordStatements, type StatementWriteContext } from '../../src-server/lrs/statement-writes';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { postmasterPid, serverCpuByKind } from './postgres-cpu';
import { statementGenerator } from './statements';
import { PUBLIC_URL, benchStoreAndKey } from './write-context';

const { values: args } = parseArgs({
  options: { 'database-url': { type: 'string' }, statements: { type: 'string', default: '3000' }, processes: { type: 'string', default: '1' } },
});
const serverUrl = args['database-url'];
if (!serverUrl) throw new Error('--database-url postgres://… is required');
const total = Number(args.statements);
const WRITERS = 10;

// Every query any client of this process sends, counted (the pool's and the storage's own connections).
let queries = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: pg.Client, ...rest: unknown[]) {
  queries++;
  return (query as (...a: unknown[]) => unknown).apply(this, rest);
} as typeof query;

const name = `lore_writes_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const postmaster = await postmasterPid(serverUrl);
// `--processes 2`: two storages on the database, as two service processes have (pool, change feed, watermark each).
const storages = await Promise.all(Array.from({ length: Number(args.processes) }, () => openPostgresStorage({ url: url.toString() })));
const storage = storages[0]!;
try {
  const { store, key } = benchStoreAndKey('writes');
  await storage.insertStore(store);
  await storage.insertApiKey(key);
  const contexts: StatementWriteContext[] = storages.map((each) => {
    const clock = new StoredClock();
    each.useStampFloor(() => clock.floorMs());
    return { storage: each, store, key, version: '1.0.3', clock, publicUrl: PUBLIC_URL, events: new LiveEventBus(each) };
  });
  const generator = statementGenerator(7);

  /** `count` statements in requests of `size`, from WRITERS writers at once. */
  const run = async (count: number, size: number) => {
    const bodies = Array.from({ length: Math.ceil(count / size) }, () => Array.from({ length: size }, () => generator.next()));
    const queries0 = queries;
    const cpu0 = process.cpuUsage();
    const pg0 = postmaster === null ? new Map<string, number>() : serverCpuByKind(postmaster);
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          const outcome = await recordStatements(contexts[writer % contexts.length]!, size === 1 ? body[0] : body);
          if (!outcome.ok) throw new Error(JSON.stringify(outcome.failure));
        }
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const statements = bodies.length * size;
    const pg1 = postmaster === null ? new Map<string, number>() : serverCpuByKind(postmaster);
    const byKind = [...pg1].map(([kind, us]) => [kind, (us - (pg0.get(kind) ?? 0)) / statements] as const).filter(([, us]) => us >= 1);
    return {
      perSecond: statements / seconds,
      nodeUs: (cpu.user + cpu.system) / statements,
      postgresUs: postmaster === null ? null : byKind.reduce((sum, [, us]) => sum + us, 0),
      byKind,
      queries: (queries - queries0) / statements,
    };
  };
  await run(2000, 100); // a Store that is not empty, and a warm JIT
  await run(500, 1);
  const line = (label: string, r: Awaited<ReturnType<typeof run>>) =>
    console.log(
      `  ${label.padEnd(26)} ${r.perSecond.toFixed(0).padStart(7)} statements/s   Node ${r.nodeUs.toFixed(0).padStart(5)} µs   PostgreSQL ${r.postgresUs === null ? '    -' : r.postgresUs.toFixed(0).padStart(5)} µs ` +
        `(${r.byKind.map(([kind, us]) => `${kind} ${us.toFixed(0)}`).join(', ')})   ${r.queries.toFixed(2)} queries`,
    );
  console.log(`recordStatements on PostgreSQL, ${WRITERS} writers at once over ${storages.length} storage(s), per statement (CPU, queries sent):`);
  line('single statements', await run(total, 1));
  line('batches of 100', await run(total * 10, 100));
} finally {
  for (const each of storages) await each.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
