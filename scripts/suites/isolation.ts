/**
 * npm run suite:isolation
 * Probes whether a key of one Store can read or write another Store's data. Exits 1 on any leak.
 */
import { runIsolationSuite } from '../../test/suites/isolation/isolation-suite';
import { runSuite } from './args';

await runSuite(() => runIsolationSuite({ log: (line) => console.log(line) }));
