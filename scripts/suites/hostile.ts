/**
 * npm run suite:hostile [-- --requests 12000 --seed N --concurrency 8 --only I]
 * Generated bad requests against every endpoint of the real service. Exits 1 on any answer
 * >= 500, a crash, or RSS growth beyond the limit; each failure prints the command that replays it.
 */
import { runHostileSuite } from '../../test/suites/hostile/hostile-suite';
import { runSuite, suiteArgs } from './args';

const args = suiteArgs({ requests: 'number', seed: 'number', concurrency: 'number', only: 'number' });
const seed = args.seed ?? Math.floor(Math.random() * 2 ** 31);
await runSuite(() =>
  runHostileSuite({
    requests: args.requests ?? 12_000,
    seed,
    concurrency: args.concurrency ?? 8,
    only: args.only === undefined ? undefined : [args.only],
    rssGrowthLimitBytes: 384 * 1024 * 1024,
    log: (line) => console.log(line),
  }),
);
