/**
 * `tsx scripts/bench/write-costs.ts [--statements N] [--profile FILE]`
 *
 * Where the CPU of a batched statement write goes, per statement, without HTTP, and what that
 * allows on one thread — to read beside the throughput targets (a batched POST of ≥ 30,000
 * statements/s leaves 33 µs of one core per statement):
 * - each stage of the write path that runs before storage, one at a time over the same statements
 *   (JSON.parse, validation, preparation, index terms, signature, the received form);
 * - the whole write path without HTTP (recordStatements, batches of 100, into a fresh embedded
 *   storage: journal and fsync included);
 * - the engine's floor: sql.js running only the INSERTs a statement needs (its row with the
 *   statements table's indexes, and its index-term postings), batches of 100 in one transaction,
 *   on the real schema, no JavaScript of ours in between.
 *
 * - the same engine floor on the SQLite compiled into Node (node:sqlite), when this Node has it: what
 *   the INSERTs cost natively rather than in WebAssembly — the measure of how far a native engine
 *   would move the write path (docs/performance.md).
 *
 * --json prints the figures as one JSON object instead (the benchmark's runner reads it).
 * --profile FILE writes a V8 CPU profile of the whole-path phase alone (open it in Chrome's
 * DevTools): where a statement's CPU goes, function by function. That run's figures include the
 * profiler's own cost.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { authorityFor, recordStatements } from '../../src-server/lrs/statement-writes';
import { loadSqlJs } from '../../src-server/storage/sqljs/load-database';
import { ensureSchema } from '../../src-server/storage/sqljs/schema';
import { Sql, utf8 } from '../../src-server/storage/sqljs/sql';
import { extractIndexTerms } from '../../src-server/xapi/index-terms';
import { prepareStatement } from '../../src-server/xapi/prepare-statement';
import { receivedForm } from '../../src-server/xapi/received-statement';
import { statementSignature } from '../../src-server/xapi/statement-signature';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { validateStatement } from '../../src-server/xapi/validate-statements';
import { loadDatabaseSync } from './node-sqlite';
import { statementGenerator } from './statements';
import { PUBLIC_URL, benchStoreAndKey, openWriteContext } from './write-context';

const { values: args } = parseArgs({
  options: { statements: { type: 'string', default: '30000' }, profile: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const total = Number(args.statements);
const BATCH = 100;

const generator = statementGenerator(1);
const bodies = Array.from({ length: Math.min(total, 5000) }, () => JSON.stringify(generator.next()));
const parsed = bodies.map((text) => JSON.parse(text) as Record<string, unknown>);

const now = new Date().toISOString();
const { store, key } = benchStoreAndKey('costs');
const authority = authorityFor(key, PUBLIC_URL);
const prepare = (statement: Statement) => prepareStatement(statement, { authority, version: '1.0.3', stored: now, newId: randomUUID });
const validated = parsed.map((body) => {
  const result = validateStatement(body, '1.0.3');
  if (!result.ok) throw new Error(`a generated statement is invalid: ${JSON.stringify(result.issue)}`);
  return result.statement;
});
const prepared = validated.map(prepare);

/** µs per call of `fn` over the statements, after a pass that lets the JIT settle. */
function perStatement(fn: (i: number) => unknown): number {
  for (let i = 0; i < bodies.length; i++) fn(i);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) fn(i % bodies.length);
  return ((performance.now() - t0) * 1000) / total;
}

const stages: Array<[string, number]> = [
  ['JSON.parse', perStatement((i) => JSON.parse(bodies[i]!))],
  ['validation (schema and rules)', perStatement((i) => validateStatement(parsed[i], '1.0.3'))],
  ['preparation (id, authority, stored)', perStatement((i) => prepare(validated[i]!))],
  ['index terms', perStatement((i) => extractIndexTerms(prepared[i]!))],
  ['signature (only for an id the client gave)', perStatement((i) => statementSignature(prepared[i]!))],
  ['received form (for the Explorer)', perStatement((i) => receivedForm(parsed[i], prepared[i] as Record<string, unknown>))],
];

/** The whole write path without HTTP: recordStatements in batches, as a batched POST sends them. */
async function wholePath(): Promise<{ wallUs: number; cpuUs: number }> {
  const { ctx, close } = await openWriteContext({ store, key });
  try {
    const batchText = (from: number) => `[${Array.from({ length: BATCH }, (_, k) => bodies[(from + k) % bodies.length]).join(',')}]`;
    const profiler = args.profile === undefined ? null : new Session();
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let from = 0; from < total; from += BATCH) {
      const outcome = await recordStatements(ctx, JSON.parse(batchText(from)));
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.failure));
    }
    const cpu = process.cpuUsage(cpu0);
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(args.profile!, JSON.stringify(profile));
      profiler.disconnect();
    }
    return { wallUs: ((performance.now() - t0) * 1000) / total, cpuUs: (cpu.user + cpu.system) / total };
  } finally {
    await close();
  }
}

/** The INSERTs of the engine floor, on one engine: run, exec and a transaction around a batch. */
interface FloorEngine {
  exec(sql: string): void;
  run(sql: string, params: Array<string | number | Uint8Array | null>): void;
  close(): void;
}

/**
 * The engine alone: each statement's row and its postings, batches in one transaction each, on
 * the real schema (created by the storage on sql.js, copied as SQL text to another engine).
 */
async function engineFloors(): Promise<{ sqljs: Floor; native: Floor | null; postings: number }> {
  const SQL = await loadSqlJs(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
  const terms = prepared.map((statement) => extractIndexTerms(statement));
  const termIds = new Map<string, number>();
  const termId = (kind: string, value: string) => {
    const term = `${kind}\u0000${value}`;
    const id = termIds.get(term) ?? termIds.size + 1;
    termIds.set(term, id);
    return id;
  };
  // One (term, primary) per distinct kind and value, as the storage dedupes them.
  const postings = terms.map((index) => {
    const byTerm = new Map<number, number>();
    for (const term of index.terms) {
      const id = termId(term.kind, term.value);
      byTerm.set(id, Math.max(byTerm.get(id) ?? 0, term.primary ? 1 : 0));
    }
    return [...byTerm];
  });
  const texts = prepared.map((statement) => utf8(JSON.stringify(statement)));
  const schemaSql = (() => {
    const sql = new Sql(new SQL.Database());
    ensureSchema(sql);
    const ddl = sql.all("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").map(([text]) => `${String(text)};`);
    sql.close();
    return ddl.join('\n');
  })();
  const sqljsEngine = (): FloorEngine => {
    const sql = new Sql(new SQL.Database());
    return { exec: (text) => sql.db.exec(text), run: (text, params) => sql.run(text, params), close: () => sql.close() };
  };
  const measure = (open: () => FloorEngine, withPostings: boolean): number => {
    const engine = open();
    try {
      engine.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE');
      engine.exec(schemaSql);
      engine.run("INSERT INTO stores (num, id, slug, name, environment, created_at, updated_at) VALUES (1, 's', 's', 's', 'test', '', '')", []);
      const t0 = performance.now();
      for (let from = 0; from < total; from += BATCH) {
        engine.exec('BEGIN');
        for (let seq = from + 1; seq <= Math.min(total, from + BATCH); seq++) {
          const i = seq % prepared.length;
          const index = terms[i]!;
          engine.run(
            `INSERT INTO statements (seq, store_num, statement_id, statement, signature, stored, stored_ms, key_id, verb_id,
               registration, voided, voids_statement_id) VALUES (?, 1, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, 0, NULL)`,
            [seq, randomUUID(), texts[i]!, 'f'.repeat(64), now, seq, key.id, index.verbId, index.registration],
          );
          if (!withPostings) continue;
          const rows = postings[i]!;
          const values = rows.map(() => '(?, ?, ?)').join(', ');
          // OR IGNORE as the storage writes them (sqljs/terms.ts): no statement journal.
          engine.run(`INSERT OR IGNORE INTO term_postings (term, seq, is_primary) VALUES ${values}`, rows.flatMap(([term, primary]) => [term, seq, primary]));
        }
        engine.exec('COMMIT');
      }
      return ((performance.now() - t0) * 1000) / total;
    } finally {
      engine.close();
    }
  };
  const floor = (open: () => FloorEngine): Floor => ({ rowUs: measure(open, false), withPostingsUs: measure(open, true) });
  const nativeEngine = await nativeSqlite();
  const averagePostings = postings.reduce((sum, rows) => sum + rows.length, 0) / postings.length;
  return { sqljs: floor(sqljsEngine), native: nativeEngine ? floor(nativeEngine) : null, postings: averagePostings };
}

interface Floor {
  rowUs: number;
  withPostingsUs: number;
}

/** node:sqlite, when this Node has it (22.13 and later without a flag): a fresh in-memory database each call. */
async function nativeSqlite(): Promise<(() => FloorEngine) | null> {
  type NativeDatabase = {
    exec(sql: string): void;
    prepare(sql: string): { run(...params: Array<string | number | Uint8Array | null>): unknown };
    close(): void;
  };
  const DatabaseSync = await loadDatabaseSync<new (location: string) => NativeDatabase>();
  if (!DatabaseSync) return null;
  return () => {
    const db = new DatabaseSync(':memory:');
    const statements = new Map<string, ReturnType<NativeDatabase['prepare']>>();
    return {
      exec: (text) => db.exec(text),
      run: (text, params) => {
        let stmt = statements.get(text);
        if (!stmt) statements.set(text, (stmt = db.prepare(text)));
        stmt.run(...params);
      },
      close: () => db.close(),
    };
  };
}

const whole = await wholePath();
const floors = await engineFloors();
const stageSum = stages.reduce((sum, [, us]) => sum + us, 0);
if (args.json) {
  console.log(
    JSON.stringify({
      statements: total,
      batch: BATCH,
      stages: Object.fromEntries(stages),
      wholePath: { wallMicros: whole.wallUs, cpuMicros: whole.cpuUs },
      engineFloor: { sqljs: floors.sqljs, native: floors.native, postingsPerStatement: floors.postings },
    }),
  );
} else {
  const line = (label: string, us: number) => console.log(`  ${label.padEnd(58)} ${us.toFixed(1).padStart(7)} µs`);
  const budget = (perSecond: number) => `${perSecond.toLocaleString('en-US')}/s on one core leaves ${(1e6 / perSecond).toFixed(0)} µs a statement`;
  console.log(`Write costs per statement, ${total.toLocaleString('en-US')} statements, batches of ${BATCH}, a fresh Store`);
  console.log('stages before storage, one at a time:');
  for (const [label, us] of stages) line(label, us);
  line('sum of these stages', stageSum);
  console.log('the whole write path without HTTP (recordStatements, journal and fsync included):');
  line('wall time', whole.wallUs);
  line('CPU', whole.cpuUs);
  for (const [engine, floor] of [['sql.js', floors.sqljs], ['node:sqlite, native', floors.native]] as const) {
    if (!floor) {
      console.log('the engine alone on node:sqlite: not measured (this Node has no node:sqlite)');
      continue;
    }
    console.log(`the engine alone (${engine}, real schema, no JavaScript of ours):`);
    line('statement row with its indexes', floor.rowUs);
    line(`row and its ${floors.postings.toFixed(1)} index-term postings`, floor.withPostingsUs);
  }
  if (floors.native) console.log(`native engine vs sql.js, row and postings: ${(floors.native.withPostingsUs / floors.sqljs.withPostingsUs).toFixed(2)}×`);
  console.log(`budgets: ${budget(30_000)}; ${budget(10_000)}`);
  console.log(
    `ceiling of this path on one core: ${Math.floor(1e6 / whole.cpuUs).toLocaleString('en-US')} statements/s (engine floor alone: ${Math.floor(1e6 / floors.sqljs.withPostingsUs).toLocaleString('en-US')}/s)`,
  );
}
