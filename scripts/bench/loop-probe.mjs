/**
 * Loaded into the service by the benchmark (`--import`) when it measures backups (backup-pause.ts):
 * the measure the backup schedule logs (src-server/admin/backup-schedule.ts: monitorEventLoopDelay
 * at 10 ms resolution, its longest interval between ticks), taken all the time instead of during a
 * backup only, and printed to stderr once per window as `[loop probe] <longest ms>`. A run with no
 * backup read the same way is the baseline a backup's figure is compared with: under load the loop
 * is held by request handling and garbage collection too, not only by the backup.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const WINDOW_MS = 100;
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
setInterval(() => {
  // A window in which no tick completed has no sample: its delay shows in the next window's.
  if (histogram.count > 0) process.stderr.write(`[loop probe] ${(histogram.max / 1e6).toFixed(1)}\n`);
  histogram.reset();
}, WINDOW_MS).unref();
