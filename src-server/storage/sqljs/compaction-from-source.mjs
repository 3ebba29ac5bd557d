// Runs compaction-worker.ts, in a child process or on a worker thread, when the service runs from
// source (npm run serve, tests). Node 20 does not apply tsx's loader hooks to worker threads, and a
// child is started without the service's flags; tsImport loads the module with them. Built
// services start compaction-worker.js beside their bundle instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./compaction-worker.ts', import.meta.url);
