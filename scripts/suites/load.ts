/**
 * npm run suite:load [-- --learners 200 --seconds 300 --burst --seed N --max-p99 1000]
 * A class of learners taking a course against the real service. Exits 1 on any error (or a p99
 * above --max-p99 ms).
 */
import { runLoadSuite } from '../../test/suites/load/load-suite';
import { runSuite, suiteArgs } from './args';

const args = suiteArgs({ learners: 'number', seconds: 'number', burst: 'boolean', seed: 'number', 'max-p99': 'number' });
await runSuite(() =>
  runLoadSuite({
    learners: args.learners ?? 200,
    durationMs: (args.seconds ?? 300) * 1000,
    burst: args.burst,
    seed: args.seed ?? Math.floor(Math.random() * 2 ** 31),
    thinkMs: [1000, 4000],
    maxP99Ms: args['max-p99'],
    log: (line) => console.log(line),
  }),
);
