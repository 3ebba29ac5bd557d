/**
 * `reads.ts --engine`: the read scenarios' requests without HTTP, on a kept data directory opened
 * by the embedded storage itself. For each scenario: the plan SQLite chooses for its query (EXPLAIN
 * QUERY PLAN), and per request the time of its parts — the storage read (SQL and rows), the
 * formatting of the page (the xAPI StatementResult's text; the Explorer's records and their JSON) —
 * as p50/p95 over the scenario's values, one request at a time (wall time: on a busy machine the
 * p95 says more about the machine than the code; compare p50s, before and after, back to back).
 *
 * Then the engine alone: each request's SQL (the page's rows, nothing decoded) on sql.js, and the
 * same SQL on the SQLite compiled into Node (node:sqlite, when this Node has it) over the same
 * snapshot file, read-only, with the same page cache: how far a native engine would move a read.
 */
import { join } from 'node:path';
import type { ExplorerQueryInput } from '../../src-server/admin/contract';
import { readStatements } from '../../src-server/lrs/statement-reads';
import { explorerFilterOf, explorerPageUtf8 } from '../../src-server/admin/explorer';
import { explorerLists, explorerDrive } from '../../src-server/storage/explorer-query';
import type { ExplorerQuery, StatementQuery, StoreRecord } from '../../src-server/storage/storage';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { explorerStatementQuery, statementQuery } from '../../src-server/storage/sqljs/queries';
import type { Sql } from '../../src-server/storage/sqljs/sql';
import { SNAPSHOT_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import { parseStatementQuery } from '../../src-server/xapi/statement-query';
import { percentile } from './load';
import { median } from './median';
import { loadDatabaseSync } from './node-sqlite';
import { scenarios, type StoreContext } from './scenarios';

type SqljsStorage = Awaited<ReturnType<typeof openSqljsStorage>>;

/** The query string of a scenario's request, as the route receives it. */
function paramsOf(path: string): Record<string, string> {
  return Object.fromEntries(new URL(path, 'http://x').searchParams);
}

function summary(times: number[]): string {
  const sorted = Float64Array.from(times).sort();
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms`;
}

function plan(sql: Sql, q: { sql: string; params: unknown[] }): string {
  return sql
    .all(`EXPLAIN QUERY PLAN ${q.sql}`, q.params as never)
    .map((row) => `    ${String(row[3])}`)
    .join('\n');
}

/** A query as the engine runs it: its SQL text and parameters. */
type EngineQuery = { sql: string; params: unknown[] };

interface NativeReader {
  all(query: EngineQuery): unknown[];
  close(): void;
}

/** The snapshot opened read-only by node:sqlite with the storage's page cache; null when this Node has none. */
async function nativeReader(dataDir: string, cacheSize: number): Promise<NativeReader | null> {
  type Statement = { all(...params: unknown[]): unknown[] };
  type NativeDatabase = { exec(sql: string): void; prepare(sql: string): Statement; close(): void };
  const DatabaseSync = await loadDatabaseSync<new (location: string, options: { readOnly: boolean }) => NativeDatabase>();
  if (!DatabaseSync) return null;
  const db = new DatabaseSync(join(dataDir, SNAPSHOT_FILE), { readOnly: true });
  db.exec(`PRAGMA cache_size = ${cacheSize}`);
  const prepared = new Map<string, Statement>();
  return {
    all: (query) => {
      let statement = prepared.get(query.sql);
      if (!statement) prepared.set(query.sql, (statement = db.prepare(query.sql)));
      return statement.all(...query.params);
    },
    close: () => db.close(),
  };
}

/** Each query's SQL alone, on sql.js and natively, the second of two passes (the first warms both). */
function engineAlone(sql: Sql, native: NativeReader | null, queries: EngineQuery[]): void {
  const sqljs: number[] = [];
  const nativeTimes: number[] = [];
  for (let pass = 0; pass < 2; pass++) {
    sqljs.length = 0;
    nativeTimes.length = 0;
    for (const query of queries) {
      let t = performance.now();
      const rows = sql.all(query.sql, query.params as never).length;
      sqljs.push(performance.now() - t);
      if (!native) continue;
      t = performance.now();
      const nativeRows = native.all(query).length;
      nativeTimes.push(performance.now() - t);
      if (nativeRows !== rows) throw new Error(`node:sqlite found ${nativeRows} rows where sql.js found ${rows}: ${query.sql}`);
    }
  }
  const nativeText = native ? `node:sqlite ${summary(nativeTimes)} (${(median(nativeTimes) / median(sqljs)).toFixed(2)}× at p50)` : 'node:sqlite not measured (this Node has none)';
  console.log(`  the engine alone, the page's SQL: sql.js ${summary(sqljs)}; ${nativeText}`);
}

async function xapiScenario(storage: SqljsStorage, sql: Sql, storeNum: number, store: StoreRecord, paths: string[], queries: EngineQuery[]): Promise<void> {
  const read: number[] = [];
  const whole: number[] = [];
  let shown = false;
  for (const path of paths) {
    const parsed = parseStatementQuery(paramsOf(path), '1.0.3');
    if (!parsed.ok) throw new Error(`${path}: ${JSON.stringify(parsed)}`);
    const q = parsed.query;
    const storageQuery: StatementQuery = { agent: q.agent, verbId: q.verb, activityId: q.activity, limit: q.limit, maxSeq: await storage.currentSeq() };
    const built = statementQuery(storeNum, storageQuery, storageQuery.limit + 1);
    queries.push(built);
    if (!shown) {
      console.log(plan(sql, built));
      shown = true;
    }
    let t = performance.now();
    await storage.queryStatements(store.id, storageQuery);
    read.push(performance.now() - t);
    t = performance.now();
    const result = await readStatements(storage, store, q, { acceptLanguages: [], morePath: '/x/statements', floorMs: Date.now() });
    if (!result.ok) throw new Error(JSON.stringify(result));
    whole.push(performance.now() - t);
  }
  console.log(`  storage read: ${summary(read)}; whole read with the StatementResult text: ${summary(whole)}`);
}

async function explorerScenario(storage: SqljsStorage, sql: Sql, storeNum: number, store: StoreRecord, paths: string[], queries: EngineQuery[]): Promise<void> {
  const parts = { names: [] as number[], read: [] as number[], text: [] as number[] };
  const plans = new Set<string>();
  for (const path of paths) {
    const input = { ...paramsOf(path), limit: 50 } as ExplorerQueryInput;
    let t = performance.now();
    const filter = await explorerFilterOf(storage, store, input);
    if (!filter.ok) throw new Error(`${path}: ${filter.message}`);
    parts.names.push(performance.now() - t);
    const query: ExplorerQuery = { ...filter.query, limit: 50 };
    const drive = explorerDrive(query, explorerLists(query));
    const single = drive === null || drive.values.length === 1 ? explorerStatementQuery(storeNum, query, 51) : null;
    if (single) queries.push(single);
    const text = single ? plan(sql, single) : `    merge of several ${drive!.kind} values (explorer-merge.ts)`;
    if (!plans.has(text)) console.log(text);
    plans.add(text);
    t = performance.now();
    const page = await storage.searchExplorer(store.id, query);
    parts.read.push(performance.now() - t);
    t = performance.now();
    explorerPageUtf8(page.records, null);
    parts.text.push(performance.now() - t);
  }
  console.log(`  names: ${summary(parts.names)}; storage read: ${summary(parts.read)}; the page's JSON: ${summary(parts.text)}`);
}

export async function readEngineCosts(dataDir: string, slug: string): Promise<void> {
  const t0 = performance.now();
  const storage = await openSqljsStorage({ dataDir });
  try {
    console.log(`opened in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const store = await storage.findStoreBySlug(slug);
    if (!store) throw new Error(`no Store ${slug} in ${dataDir}`);
    // The storage's database, for the plans: a bench script may look inside.
    const sql = (storage as unknown as { db: { sql: Sql } }).db.sql;
    const storeNum = sql.first('SELECT num FROM stores WHERE id = ?', [store.id])![0] as number;
    const native = await nativeReader(dataDir, Number(sql.first('PRAGMA cache_size')![0]));
    const ctx: StoreContext = { slug, authorization: '', adminToken: '', knownIds: [] };
    for (const scenario of scenarios(ctx, 2)) {
      if (!scenario.name.startsWith('get-') || scenario.name === 'get-id') {
        if (!scenario.name.startsWith('explorer-')) continue;
      }
      // Two passes over 200 requests: the first warms the JIT and the prepared statements.
      const paths = Array.from({ length: 200 }, () => scenario.next().path);
      console.log(`${scenario.name}:`);
      const queries: EngineQuery[] = [];
      for (let pass = 0; pass < 2; pass++) {
        queries.length = 0;
        if (scenario.name.startsWith('get-')) await xapiScenario(storage, sql, storeNum, store, paths, queries);
        else await explorerScenario(storage, sql, storeNum, store, paths, queries);
      }
      // A merge of several values runs many queries per page: compared where one query is the page.
      if (queries.length > 0) engineAlone(sql, native, queries);
    }
    native?.close();
  } finally {
    await storage.close();
  }
}
