// Runs compaction-worker.ts on its worker thread when the service runs from source (npm run serve,
// tests). Node 20 does not apply tsx's loader hooks to worker threads; tsImport loads the module
// with them. Built services start compaction-worker.js beside their bundle instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./compaction-worker.ts', import.meta.url);
