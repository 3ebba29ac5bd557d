/**
 * Run as a child process by sqljs-storage.test.ts: opens the data directory, writes `count`
 * statements concurrently, prints "acked" once every write has resolved, then kills itself with
 * SIGKILL: nothing after the acknowledgement (no close, no snapshot) gets to run.
 */
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { makeStatement, makeStore } from './rows';

const [dataDir, storeId, countText] = process.argv.slice(2);
const storage = await openSqljsStorage({ dataDir: dataDir! });
await storage.insertStore(makeStore({ id: storeId! }));
const count = Number(countText);
await Promise.all(
  Array.from({ length: count }, (_, i) =>
    storage.insertStatements(storeId!, [makeStatement({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` })]),
  ),
);
process.stdout.write('acked\n', () => process.kill(process.pid, 'SIGKILL'));
