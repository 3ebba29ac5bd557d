/**
 * `tsx scripts/bench/bytes.ts [--statements N] [--kind bench|course|both] [--keep]`
 *
 * Where the bytes of a statement go on the embedded storage: N statements written through the
 * real write path (recordStatements, batches of 100, as a batched POST sends them) into a fresh
 * data directory, a clean stop, then
 * - bytes per statement of the data directory (what the capacity and the disk see),
 * - the pages of each table and index of the snapshot (sql.js has no dbstat: the snapshot's
 *   B-trees are walked page by page, overflow chains included),
 * - the bytes of each column of `statements` (the sum of the values' lengths),
 * - start-up (open of the directory) and the resident memory of a process that opened it,
 * - the CPU the statement column's compact form costs (statement-codec.ts): encoding and decoding
 *   per statement, beside JSON.parse of the same text for scale.
 * Two kinds of statement: the benchmark's realistic ones (statements.ts) and a simpler course
 * statement (a learner, a verb, a course Activity with its name, a score).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LiveEventBus } from '../../src-server/admin/live-events';
import { recordStatements } from '../../src-server/lrs/statement-writes';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { loadSqlJs } from '../../src-server/storage/sqljs/load-database';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { Sql } from '../../src-server/storage/sqljs/sql';
import { STATEMENT_AND_CONTEXT, StatementEncoder, rowContext, statementTextAt } from '../../src-server/storage/sqljs/statement-codec';
import { activityId, courseTitle, learner, prng, statementGenerator, uuidFrom } from './statements';
import { PUBLIC_URL, benchStoreAndKey } from './write-context';

const { values: args } = parseArgs({
  options: {
    statements: { type: 'string', default: '20000' },
    kind: { type: 'string', default: 'both' },
    keep: { type: 'boolean', default: false },
    /** Internal: open this data directory, print start-up and RSS as JSON, exit. */
    open: { type: 'string' },
  },
});

if (args.open) {
  const t0 = performance.now();
  const storage = await openSqljsStorage({ dataDir: args.open });
  const startupMs = performance.now() - t0;
  if (global.gc) global.gc();
  const rssMb = process.memoryUsage().rss / 1024 ** 2;
  await storage.close();
  console.log(JSON.stringify({ startupMs, rssMb }));
  process.exit(0);
}

/** A simpler course statement, as a SCORM-like course sends: a learner completes an item with a score. */
function courseGenerator(seed: number): { next(): Record<string, unknown> } {
  const random = prng(seed);
  let count = 0;
  return {
    next() {
      count++;
      const course = Math.floor(random() * 200);
      const module = Math.floor(random() * 5);
      const item = Math.floor(random() * 8);
      const scaled = Math.round(random() * 100) / 100;
      return {
        actor: learner(Math.floor(random() * random() * 20_000)),
        verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
        object: { id: activityId(course, module, item), definition: { name: { 'en-US': `${courseTitle(course)}, module ${module}, item ${item}` } } },
        result: { score: { scaled }, completion: true, success: scaled >= 0.6 },
        context: { registration: uuidFrom(random) },
        timestamp: new Date(Date.UTC(2026, 0, 1) + count * 3000).toISOString(),
      };
    },
  };
}

/** The pages of each B-tree of an SQLite file (its tables and indexes by name), overflow pages included. */
function pagesPerBtree(file: Buffer, roots: Array<[string, number]>): Map<string, number> {
  const pageSize = file.readUInt16BE(16) === 1 ? 65536 : file.readUInt16BE(16);
  const usable = pageSize - file[20]!;
  const pageAt = (n: number) => (n - 1) * pageSize;
  const varint = (at: number): [number, number] => {
    let value = 0;
    for (let i = 0; i < 9; i++) {
      const byte = file[at + i]!;
      if (i === 8) return [value * 256 + byte, 9];
      value = value * 128 + (byte & 0x7f);
      if (byte < 0x80) return [value, i + 1];
    }
    return [value, 9];
  };
  const overflowPages = (first: number): number => {
    let pages = 0;
    for (let page = first; page !== 0; page = file.readUInt32BE(pageAt(page))) pages++;
    return pages;
  };
  /** The overflow pages of a cell whose payload (`size` bytes) starts at `at`. */
  const cellOverflow = (at: number, size: number, isTable: boolean): number => {
    const max = isTable ? usable - 35 : Math.floor(((usable - 12) * 64) / 255) - 23;
    if (size <= max) return 0;
    const min = Math.floor(((usable - 12) * 32) / 255) - 23;
    const k = min + ((size - min) % (usable - 4));
    const local = k <= max ? k : min;
    return overflowPages(file.readUInt32BE(at + local));
  };
  const result = new Map<string, number>();
  for (const [name, root] of roots) {
    let pages = 0;
    const stack = [root];
    while (stack.length > 0) {
      const page = stack.pop()!;
      pages++;
      const header = pageAt(page) + (page === 1 ? 100 : 0);
      const type = file[header]!;
      const cells = file.readUInt16BE(header + 3);
      const interior = type === 2 || type === 5;
      const pointers = header + (interior ? 12 : 8);
      if (interior) stack.push(file.readUInt32BE(header + 8));
      for (let c = 0; c < cells; c++) {
        const cell = pageAt(page) + file.readUInt16BE(pointers + 2 * c);
        if (type === 5) {
          stack.push(file.readUInt32BE(cell));
          continue;
        }
        let at = interior ? cell + 4 : cell;
        if (interior) stack.push(file.readUInt32BE(cell));
        const [size, sizeLength] = varint(at);
        at += sizeLength;
        if (type === 13) at += varint(at)[1];
        pages += cellOverflow(at, size, type === 13);
      }
    }
    result.set(name, pages);
  }
  return result;
}

interface Measured {
  kind: string;
  statements: number;
  writeSeconds: number;
  files: Record<string, number>;
  dirBytes: number;
  pageSize: number;
  pages: Array<[string, number]>;
  freePages: number;
  columns: Array<[string, number]>;
  receivedRows: number;
  codec: { encodeUs: number; decodeUs: number; parseUs: number } | null;
  startupMs: number;
  rssMb: number;
}

async function measure(kind: 'bench' | 'course', total: number): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), `lore-bytes-${kind}-`));
  const { store, key } = benchStoreAndKey(kind);
  let storage = await openSqljsStorage({ dataDir, snapshotThresholdBytes: 4 * 1024 ** 3 });
  await storage.insertStore(store);
  await storage.insertApiKey(key);
  const ctx = { storage, store, key, version: '1.0.3' as const, clock: new StoredClock(), publicUrl: PUBLIC_URL, events: new LiveEventBus(storage) };
  const generator = kind === 'bench' ? statementGenerator(1) : courseGenerator(1);
  const t0 = performance.now();
  for (let sent = 0; sent < total; sent += 100) {
    const batch = Array.from({ length: Math.min(100, total - sent) }, () => generator.next());
    const outcome = await recordStatements(ctx, batch);
    if (!outcome.ok) throw new Error(JSON.stringify(outcome.failure));
  }
  const writeSeconds = (performance.now() - t0) / 1000;
  await storage.close();
  // A clean stop leaves the snapshot and an empty journal; what the directory holds is the figure.
  const files: Record<string, number> = {};
  for (const name of readdirSync(dataDir)) files[name] = statSync(join(dataDir, name)).size;
  const dirBytes = Object.values(files).reduce((sum, n) => sum + n, 0);

  const opened = JSON.parse(
    execFileSync(process.execPath, [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), '--open', dataDir], { encoding: 'utf8' }).trim().split('\n').at(-1)!,
  ) as { startupMs: number; rssMb: number };

  const SQL = await loadSqlJs(createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
  const image = readFileSync(join(dataDir, 'lore.sqlite'));
  const sql = new Sql(new SQL.Database(image));
  const roots = sql.all("SELECT name, rootpage FROM sqlite_master WHERE rootpage > 0").map(([name, root]) => [name as string, root as number] as [string, number]);
  const perBtree = pagesPerBtree(image, roots);
  const pageSize = sql.first('PRAGMA page_size')![0] as number;
  const freePages = sql.first('PRAGMA freelist_count')![0] as number;
  const columnNames = sql.all("SELECT name FROM pragma_table_info('statements')").map(([name]) => name as string);
  const sums = sql.first(`SELECT ${columnNames.map((c) => `coalesce(sum(length(CAST(${c} AS BLOB))), 0)`).join(', ')} FROM statements`)!;
  const receivedRows = sql.first('SELECT count(*) FROM statements WHERE received IS NOT NULL')![0] as number;
  const codec = codecCosts(sql.all(`SELECT ${STATEMENT_AND_CONTEXT} FROM statements WHERE typeof(statement) = 'blob' LIMIT 5000`));
  sql.close();
  storage = undefined as never;
  if (!args.keep) rmSync(dataDir, { recursive: true, force: true });
  else console.log(`kept ${dataDir}`);
  return {
    kind,
    statements: total,
    writeSeconds,
    files,
    dirBytes,
    pageSize,
    pages: [...perBtree].sort((a, b) => b[1] - a[1]),
    freePages,
    columns: columnNames.map((name, i) => [name, Number(sums[i])] as [string, number]).sort((a, b) => b[1] - a[1]),
    receivedRows,
    codec,
    ...opened,
  };
}

/** CPU µs per statement of decoding, encoding again, and (for scale) JSON.parse, over rows of the compact form. */
function codecCosts(rows: unknown[][]): Measured['codec'] {
  if (rows.length === 0) return null;
  const cpuUs = (fn: () => void) => {
    fn(); // a pass for the JIT
    const start = process.cpuUsage();
    for (let round = 0; round < 3; round++) fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / (3 * rows.length);
  };
  let texts: string[] = [];
  const decodeUs = cpuUs(() => (texts = rows.map((row) => statementTextAt(row, 0))));
  const contexts = rows.map((row) => rowContext({ statementId: row[1] as string, stored: row[2] as string, keyId: row[3] as string }));
  const bytes = texts.map((text) => Buffer.from(text, 'utf8'));
  const encoder = new StatementEncoder();
  const encodeUs = cpuUs(() => bytes.forEach((text, i) => encoder.encode(text, contexts[i]!)));
  const parseUs = cpuUs(() => texts.forEach((text) => JSON.parse(text)));
  return { encodeUs, decodeUs, parseUs };
}

function report(m: Measured): void {
  const per = (bytes: number) => (bytes / m.statements).toFixed(0).padStart(6);
  console.log(`\n${m.kind}: ${m.statements.toLocaleString('en-US')} statements, written in ${m.writeSeconds.toFixed(1)} s`);
  console.log(`  data directory after a clean stop: ${m.dirBytes.toLocaleString('en-US')} bytes = ${per(m.dirBytes).trim()} bytes a statement`);
  for (const [name, size] of Object.entries(m.files)) console.log(`    ${name.padEnd(40)} ${size.toLocaleString('en-US').padStart(14)}`);
  console.log(`  start-up ${m.startupMs.toFixed(0)} ms, RSS after open ${m.rssMb.toFixed(0)} MB`);
  console.log(`  pages of each table and index (${m.pageSize}-byte pages), bytes a statement:`);
  for (const [name, pages] of m.pages) if (pages * m.pageSize >= m.statements) console.log(`    ${name.padEnd(40)} ${per(pages * m.pageSize)}`);
  const small = m.pages.filter(([, pages]) => pages * m.pageSize < m.statements).reduce((sum, [, pages]) => sum + pages, 0);
  console.log(`    ${'(the others, together)'.padEnd(40)} ${per(small * m.pageSize)}`);
  console.log(`    ${'(free pages)'.padEnd(40)} ${per(m.freePages * m.pageSize)}`);
  console.log(`  columns of statements, bytes a statement (values only; ${m.receivedRows} rows keep a received form):`);
  for (const [name, bytes] of m.columns) console.log(`    ${name.padEnd(40)} ${per(bytes)}`);
  if (m.codec) {
    const { encodeUs, decodeUs, parseUs } = m.codec;
    console.log(`  the compact form's CPU a statement: encode ${encodeUs.toFixed(1)} µs, decode ${decodeUs.toFixed(1)} µs (JSON.parse of the same text: ${parseUs.toFixed(1)} µs)`);
  }
}

const total = Number(args.statements);
const kinds = args.kind === 'both' ? (['bench', 'course'] as const) : [args.kind as 'bench' | 'course'];
for (const kind of kinds) report(await measure(kind, total));
