/**
 * `tsx scripts/bench/postgres-rounds.ts --database-url postgres://… [--rounds 6] [--seconds 3] [--preload 5000] [--scenario post-1-c10,post-100] [--before <main.js>]`
 *
 * PostgreSQL against the embedded storage in alternating rounds: the "single POST on one
 * process ≥ 60% of the sql.js figure in the same run" read the way the batched-POST target is.
 * One run of each (`npm run bench -- --database-url …`) gave anywhere from 0.52× to 0.65× on this
 * machine; rounds that alternate see the same load, so the median of the per-round ratios says on
 * which side of the line it is. One service on a fresh data directory (sql.js) and one on a fresh
 * database of the server the URL names (its user needs CREATEDB; the database is dropped at the
 * end), the same statements preloaded in each, then each scenario in rounds whose order alternates.
 * Prints, per round, requests a second and CPU per request in the service (and in PostgreSQL's
 * processes, when the server runs on this machine), then the median ratio.
 *
 * With `--before` (an earlier build's out/server/main.js), both sides are PostgreSQL, each on a
 * database of its own: that build against this one, to measure a change of the PostgreSQL storage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { median } from './median';
import { createStore, measure, withDatabase, type Measured } from './postgres';
import { postmasterPid } from './postgres-cpu';
import { startServiceProcess, type Child } from './processes';
import { preload } from './read-store';
import { scenarios, type Scenario } from './scenarios';
import { warmUp, warmUpSeconds } from './warm-up';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '3' },
    preload: { type: 'string', default: '5000' },
    scenario: { type: 'string', default: 'post-1-c10,post-100' },
    before: { type: 'string' },
  },
  strict: true,
});
if (!args['database-url']) throw new Error('--database-url is required');
const serverUrl = args['database-url'];
const rounds = Number(args.rounds);
const seconds = Number(args.seconds);
const wanted = args.scenario.split(',');

interface Side {
  label: string;
  service: Child;
  chosen: Scenario[];
  /** PostgreSQL's server process, whose CPU is counted with this side's (null: sql.js, or a server elsewhere). */
  postmaster: number | null;
}

/** A service on a fresh data directory with `env`, the same statements preloaded, and the wanted scenarios against it. */
async function startSide(label: string, dataDir: string, env: Record<string, string>, postmaster: number | null, main?: string): Promise<Side> {
  const service = await startServiceProcess({ dataDir, env, main });
  try {
    const ctx = await createStore(service.url);
    await preload([service.url], ctx, Number(args.preload), 1);
    const chosen = wanted.map((name) => {
      const found = scenarios(ctx, 2).find((s) => s.name === name);
      if (!found) throw new Error(`no scenario ${name}`);
      return found;
    });
    return { label, service, chosen, postmaster };
  } catch (err) {
    await service.stop();
    throw err;
  }
}

const micros = (value: number | null) => (value === null ? '-' : value.toFixed(0));

/** What a side's run cost: CPU per request in the service, and in PostgreSQL when it is measured. */
const costs = (side: Side, m: Measured) =>
  side.postmaster === null
    ? `${micros(m.nodeMicrosPerRequest)} µs a request`
    : `service ${micros(m.nodeMicrosPerRequest)} µs, PostgreSQL ${micros(m.postgresMicrosPerRequest)} µs`;

/** `second` ÷ `first` in requests a second, scenario by scenario over alternating rounds. */
async function compare(first: Side, second: Side): Promise<void> {
  // Both services warmed up (warm-up.ts) before any round: a new process costs ~2.5× its steady CPU at first.
  for (const side of [first, second]) await warmUp([side.service.url], side.chosen, warmUpSeconds(false));
  for (const [index, name] of wanted.entries()) {
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first: a machine speeding up or slowing down favours neither.
      const order = round % 2 === 0 ? [first, second] : [second, first];
      const measured = new Map<Side, Measured>();
      for (const side of order) measured.set(side, await measure([side.service], side.chosen[index]!, seconds, side.postmaster));
      const [a, b] = [measured.get(first)!, measured.get(second)!];
      const ratio = b.requestsPerSec / a.requestsPerSec;
      ratios.push(ratio);
      console.log(
        `${name} round ${round + 1}: ${first.label} ${a.requestsPerSec.toFixed(0)} req/s (${costs(first, a)}), ` +
          `${second.label} ${b.requestsPerSec.toFixed(0)} req/s (${costs(second, b)}): ${ratio.toFixed(2)}×`,
      );
    }
    console.log(
      `${name}: ${second.label} ÷ ${first.label}, median of ${rounds} rounds ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
    );
  }
}

const postmaster = await postmasterPid(serverUrl);
const runName = `lore_rounds_${Date.now().toString(36)}`;

/** A fresh database for each name, given to `work` by URL, all dropped after it. */
async function withDatabases(names: string[], work: (urls: string[]) => Promise<void>, urls: string[] = []): Promise<void> {
  if (urls.length === names.length) return work(urls);
  return withDatabase(serverUrl, `${runName}_${names[urls.length]}`, (url) => withDatabases(names, work, [...urls, url]));
}

/** The preload's tables analysed now, not by autovacuum during a measured round. */
async function analyse(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('VACUUM ANALYZE').finally(() => client.end());
}

const dirs = [mkdtempSync(join(tmpdir(), 'lore-rounds-a-')), mkdtempSync(join(tmpdir(), 'lore-rounds-b-'))];
const sides: Side[] = [];
try {
  await withDatabases(args.before ? ['before', 'after'] : ['pg'], async (urls) => {
    try {
      if (args.before) {
        sides.push(await startSide('before', dirs[0]!, { LRS_DATABASE_URL: urls[0]! }, postmaster, args.before));
        sides.push(await startSide('after', dirs[1]!, { LRS_DATABASE_URL: urls[1]! }, postmaster));
      } else {
        sides.push(await startSide('sql.js', dirs[0]!, {}, null));
        sides.push(await startSide('PostgreSQL', dirs[1]!, { LRS_DATABASE_URL: urls[0]! }, postmaster));
      }
      for (const url of urls) await analyse(url);
      await compare(sides[0]!, sides[1]!);
    } finally {
      // Stopped before the databases are dropped.
      for (const side of sides) await side.service.stop();
    }
  });
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
