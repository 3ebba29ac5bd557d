/**
 * `tsx scripts/bench/storage-micro.ts [--statements N] [--concurrency N] [--batch N] [--bodies N] [--json]`
 *
 * The statement write path without HTTP: recordStatements (validation, prepare, index terms) into
 * a fresh embedded storage, N statements written `batch` to a write (1: single statements) with
 * `concurrency` writes in flight, as the HTTP load sends them. --bodies: how many different
 * request bodies are cycled (the HTTP load's batches cycle 20: their agents, Activities and names
 * are then known after the first round, and only the statements are new). Prints statements/s
 * and CPU per statement; the place to measure storage changes before running the whole
 * benchmark. --json prints the figures as one JSON object (the benchmark's runner reads it: the
 * single-POST target's budget beside what the write alone costs).
 */
import { parseArgs } from 'node:util';
import { recordStatements } from '../../src-server/lrs/statement-writes';
import { statementGenerator } from './statements';
import { benchStoreAndKey, openWriteContext } from './write-context';

const { values: args } = parseArgs({
  options: {
    statements: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '10' },
    batch: { type: 'string', default: '1' },
    bodies: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const total = Number(args.statements);
const concurrency = Number(args.concurrency);
const batchSize = Number(args.batch);
const { ctx, close } = await openWriteContext(benchStoreAndKey('micro'));
const generator = statementGenerator(1);
const bodyCount = args.bodies !== undefined ? Number(args.bodies) : Math.max(1, Math.min(total / batchSize, 5000));
const bodies = Array.from({ length: bodyCount }, () =>
  JSON.stringify(batchSize === 1 ? generator.next() : Array.from({ length: batchSize }, () => generator.next())),
);

let next = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next * batchSize < total) {
      const body = JSON.parse(bodies[next++ % bodies.length]!);
      const outcome = await recordStatements(ctx, body);
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.failure));
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
if (args.json) {
  console.log(JSON.stringify({ statements: total, concurrency, batch: batchSize, perSecond: total / seconds, cpuMicros: (cpu.user + cpu.system) / total }));
} else {
  console.log(
    `${total} statements, ${batchSize} a write, ${concurrency} in flight: ${(total / seconds).toFixed(0)} statements/s, ` +
      `${((cpu.user + cpu.system) / total).toFixed(0)} µs CPU each (user ${(cpu.user / total).toFixed(0)}, system ${(cpu.system / total).toFixed(0)})`,
  );
}
await close();
