/**
 * npm run suite:crash [-- --rounds 10 --writers 20 --seed N]
 * Kill -9 rounds against the real service, then damaged data directories. Exits 1 when an
 * acknowledged write is missing or the service does not start. With LRS_DATABASE_URL set (an
 * empty PostgreSQL database), the service runs on it and the data-directory damage cases are
 * left out (PostgreSQL keeps no data directory of Lore's).
 */
import { runCrashSuite } from '../../test/suites/crash/crash-suite';
import { runSuite, suiteArgs } from './args';

const args = suiteArgs({ rounds: 'number', writers: 'number', seed: 'number', 'no-damage': 'boolean' });
const seed = args.seed ?? Math.floor(Math.random() * 2 ** 31);
await runSuite(() =>
  runCrashSuite({
    rounds: args.rounds ?? 10,
    writers: args.writers ?? 20,
    seed,
    killAfterMs: [300, 2500],
    snapshotThresholdBytes: 256 * 1024,
    damageCases: args['no-damage'] || process.env['LRS_DATABASE_URL'] ? 'none' : 'all',
    ...(process.env['LRS_DATABASE_URL'] ? { databaseUrl: process.env['LRS_DATABASE_URL'] } : {}),
    log: (line) => console.log(line),
  }),
);
