/**
 * `tsx scripts/bench/replay.ts [--statements N] [--concurrency N]`
 *
 * Recovery after a crash: N single-statement writes (`concurrency` in flight, as the HTTP load
 * sends them) into a fresh embedded storage whose snapshot threshold is never reached, so every
 * write is a journal record; then the data directory is copied as a kill -9 would leave it and
 * opened again, timed. Prints the records replayed and the time the open took per record.
 * --profile FILE writes a V8 CPU profile of the open (open it in Chrome's DevTools).
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { recordStatements } from '../../src-server/lrs/statement-writes';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { LiveEventBus } from '../../src-server/admin/live-events';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { statementGenerator } from './statements';
import { PUBLIC_URL, benchStoreAndKey } from './write-context';

const { values: args } = parseArgs({
  options: { statements: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '10' }, profile: { type: 'string' } },
});
const total = Number(args.statements);
const concurrency = Number(args.concurrency);
const { store, key } = benchStoreAndKey('replay');
const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-replay-'));
const crashed = mkdtempSync(join(tmpdir(), 'lore-bench-replay-crashed-'));
const storage = await openSqljsStorage({ dataDir, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
try {
  await storage.insertStore(store);
  await storage.insertApiKey(key);
  const ctx = { storage, store, key, version: '1.0.3' as const, clock: new StoredClock(), publicUrl: PUBLIC_URL, events: new LiveEventBus(storage) };
  const generator = statementGenerator(1);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) {
        const outcome = await recordStatements(ctx, generator.next());
        if (!outcome.ok) throw new Error(`a write was refused: ${outcome.failure.message}`);
      }
    }),
  );
  // Every write above resolved, so its record is on disk: the copy is what a kill -9 leaves.
  cpSync(dataDir, crashed, { recursive: true, filter: (src) => basename(src) !== 'lore.lock' });
  const logs: string[] = [];
  const session = args.profile ? new Session() : null;
  session?.connect();
  await session?.post('Profiler.enable');
  await session?.post('Profiler.start');
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const reopened = await openSqljsStorage({ dataDir: crashed, log: (msg) => logs.push(msg) });
  const openMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const openCpuMs = (cpu.user + cpu.system) / 1000;
  if (session && args.profile) writeFileSync(args.profile, JSON.stringify((await session.post('Profiler.stop')).profile));
  const found = (await reopened.stats(store.id)).statements;
  await reopened.close();
  const replayed = Number(/replayed (\d+) journal records/.exec(logs.join('\n'))?.[1] ?? 0);
  console.log(`Recovery after a crash: ${total.toLocaleString('en-US')} single-statement writes, ${concurrency} in flight, no snapshot`);
  console.log(`  statements found after the open          ${found.toLocaleString('en-US')}`);
  console.log(`  journal records replayed                 ${replayed.toLocaleString('en-US')}`);
  const perRecord = (ms: number) => `${((ms * 1000) / Math.max(1, replayed)).toFixed(1)} µs per record`;
  console.log(`  open (load and replay), wall             ${openMs.toFixed(0)} ms, ${perRecord(openMs)}`);
  console.log(`  open (load and replay), CPU              ${openCpuMs.toFixed(0)} ms, ${perRecord(openCpuMs)}`);
  if (found !== total) process.exitCode = 1;
} finally {
  await storage.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(crashed, { recursive: true, force: true });
}
