/**
 * `tsx scripts/bench/storage-micro.ts [--statements N] [--concurrency N]`
 *
 * The statement write path without HTTP: recordStatements (validation, prepare, index terms) into
 * a fresh embedded storage, N single-statement writes with `concurrency` in flight, as the HTTP
 * load sends them. Prints statements/s and CPU per statement; the place to measure storage changes
 * before running the whole benchmark.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { recordStatements } from '../../src-server/lrs/statement-writes';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { statementGenerator } from './statements';

const { values: args } = parseArgs({
  options: { statements: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '10' } },
});
const total = Number(args.statements);
const concurrency = Number(args.concurrency);
const dataDir = mkdtempSync(join(tmpdir(), 'lore-micro-'));
const storage = await openSqljsStorage({ dataDir });
const now = new Date().toISOString();
const store = { id: 'store-1', slug: 'micro', name: 'Micro', environment: 'test' as const, createdAt: now, updatedAt: now };
await storage.insertStore(store);
const key = {
  id: 'lore_test_micro', storeId: store.id, name: 'micro', secretHash: '0'.repeat(64), scopes: ['all'], environment: 'test' as const,
  createdAt: now, lastUsedAt: null, expiresAt: null, revokedAt: null, replacedBy: null,
};
await storage.insertApiKey(key);
const generator = statementGenerator(1);
const bodies = Array.from({ length: Math.min(total, 5000) }, () => JSON.stringify(generator.next()));
const ctx = { storage, store, key, version: '1.0.3' as const, clock: new StoredClock(), publicUrl: 'http://127.0.0.1' };

let next = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const body = JSON.parse(bodies[next++ % bodies.length]!);
      const outcome = await recordStatements(ctx, body);
      if (!outcome.ok) throw new Error(JSON.stringify(outcome.failure));
    }
  }),
);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(
  `${total} statements, ${concurrency} in flight: ${(total / seconds).toFixed(0)} statements/s, ` +
    `${((cpu.user + cpu.system) / total).toFixed(0)} µs CPU each (user ${(cpu.user / total).toFixed(0)}, system ${(cpu.system / total).toFixed(0)})`,
);
await storage.close();
rmSync(dataDir, { recursive: true, force: true });
