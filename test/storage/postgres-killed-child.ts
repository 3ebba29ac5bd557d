/**
 * Run as a child process by postgres-processes.test.ts: opens the PostgreSQL storage, writes
 * `count` statements into the Store, prints "acked" once every write has resolved, then kills
 * itself with SIGKILL, well within the interval in which it would have announced them
 * (change-announcer.ts): the other processes never hear of these writes from it.
 */
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { makeStatement } from './rows';

const [url, storeId, countText] = process.argv.slice(2);
const storage = await openPostgresStorage({ url: url!, poolSize: 2 });
await Promise.all(Array.from({ length: Number(countText) }, () => storage.insertStatements(storeId!, [makeStatement()])));
process.stdout.write('acked\n', () => process.kill(process.pid, 'SIGKILL'));
