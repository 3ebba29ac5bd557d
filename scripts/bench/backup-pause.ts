/**
 * How long a backup holds the service, against the same load with none: single POSTs for
 * `loadSeconds` while (a) nothing else happens, (b) a download backup is taken (POST
 * /admin/api/backups: the in-memory database exported at once), (c) scheduled backups run (the
 * snapshot brought up to date and copied, checked in a worker).
 *
 * Two measures per run. The clients' longest stall (latency or gap without a response). And how
 * long the service's event loop was held at most, which every writer waits on: a scheduled backup
 * logs it itself (backup-schedule.ts); the loop probe (loop-probe.mjs, loaded into the service of
 * every run) takes the same measure all the time, so the run with no backup gives the baseline
 * over the same times after start as the scheduled backups ran: the load holds the loop too
 * (request handling, garbage collection, a machine shared with the load generator).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadResult } from './load';
import { ADMIN_TOKEN, startServiceProcess, type LogLine } from './processes';
import type { BackupPauseReport, BackupRunReport } from './report';
import { scenarios, type StoreContext } from './scenarios';

const LOOP_PROBE = new URL('loop-probe.mjs', import.meta.url).href;
/** loop-probe.mjs's window: a probe line tells the longest delay of the window that ends at it. */
const PROBE_WINDOW_MS = 100;
/** A scheduled backup under load at 1M takes longer than the load window. */
const MAX_SECONDS = 120;

/** Milliseconds after the run's load started. */
interface Span {
  from: number;
  to: number;
}

interface RunLog {
  probe: Array<{ at: number; ms: number }>;
  backups: Array<Span & { heldMs: number }>;
}

/** The probe's lines and the scheduled backups' own accounts, timed from `from`. */
function readLog(lines: LogLine[], from: number): RunLog {
  const probe: RunLog['probe'] = [];
  const backups: RunLog['backups'] = [];
  for (const line of lines) {
    if (line.at < from) continue;
    const at = line.at - from;
    const sample = /^\[loop probe\] ([\d.]+)$/.exec(line.text);
    if (sample) probe.push({ at, ms: Number(sample[1]) });
    // backup-schedule.ts: "backup written: <file> (<n> bytes, <n> statements; <took> ms, the event loop held at most <held> ms)".
    const backup = /backup written: .*; (\d+) ms, the event loop held at most (\d+) ms/.exec(line.text);
    if (backup) backups.push({ from: at - Number(backup[1]), to: at, heldMs: Number(backup[2]) });
  }
  return { probe, backups };
}

/** The probe's longest over `spans` (a window is reported at its end, so one window past each), or null. */
function probeMax(log: RunLog, spans: Span[]): number | null {
  const inside = log.probe.filter(({ at }) => spans.some((span) => at >= span.from && at <= span.to + PROBE_WINDOW_MS));
  return inside.length > 0 ? Math.max(...inside.map(({ ms }) => ms)) : null;
}

const WHOLE_RUN: Span[] = [{ from: 0, to: Number.POSITIVE_INFINITY }];

export async function backupPause(options: { dataDir: string; ctx: StoreContext; loadSeconds: number; seed: number }): Promise<BackupPauseReport> {
  const { dataDir, ctx, loadSeconds } = options;
  const backupDir = mkdtempSync(join(tmpdir(), 'lore-bench-backups-'));
  const post = scenarios(ctx, options.seed)[0]!;
  const stallOf = (load: LoadResult) => Math.max(load.max, load.longestGapMs);

  async function run(kind: 'none' | 'download' | 'scheduled'): Promise<{ report: BackupRunReport; log: RunLog; download: Span | null }> {
    // Scheduled: the first backup is taken one interval after start, then every interval.
    const interval = Math.max(2, Math.floor(loadSeconds / 3));
    const env: Record<string, string> = kind === 'scheduled' ? { LRS_BACKUP_INTERVAL: `${interval}s`, LRS_BACKUP_DIR: backupDir, LRS_BACKUP_KEEP: '2' } : {};
    const service = await startServiceProcess({ dataDir, env, nodeFlags: ['--import', LOOP_PROBE] });
    try {
      const from = performance.now();
      const written = () => service.log.filter((line) => line.at >= from && /backup written/.test(line.text)).length;
      let download: Span | null = null;
      const load = runLoad({
        baseUrl: service.url,
        connections: 10,
        seconds: loadSeconds,
        next: post.next,
        statementsPerRequest: 1,
        serverPid: service.child.pid,
        // On until a backup has been written, so the figures cover a whole backup.
        ...(kind === 'scheduled' ? { extendUntil: { done: () => written() > 0, maxSeconds: MAX_SECONDS } } : {}),
      });
      if (kind === 'download') {
        await new Promise((resolve) => setTimeout(resolve, (loadSeconds * 1000) / 3));
        const asked = performance.now() - from;
        const response = await fetch(`${service.url}/admin/api/backups`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        await response.arrayBuffer();
        if (response.ok) download = { from: asked, to: performance.now() - from };
      }
      const result = await load;
      const log = readLog(service.log, from);
      const held = log.backups.map((backup) => backup.heldMs);
      return {
        log,
        download,
        report: {
          kind,
          backups: kind === 'download' ? Number(download !== null) : log.backups.length,
          longestStallMs: stallOf(result),
          statementsPerSec: result.statementsPerSec,
          // Filled in below for the runs whose figure is the probe's.
          heldMs: held.length > 0 ? Math.max(...held) : null,
          probeHeldMs: null,
          probeWholeRunMs: probeMax(log, WHOLE_RUN),
        },
      };
    } finally {
      await service.stop();
    }
  }

  try {
    const none = await run('none');
    const download = await run('download');
    const scheduled = await run('scheduled');
    const backupSpans = scheduled.log.backups;
    // The baseline: the run with no backup, read over the times the scheduled backups ran.
    none.report.heldMs = probeMax(none.log, backupSpans);
    none.report.probeHeldMs = none.report.heldMs;
    scheduled.report.probeHeldMs = probeMax(scheduled.log, backupSpans);
    download.report.heldMs = download.download ? probeMax(download.log, [download.download]) : null;
    download.report.probeHeldMs = download.report.heldMs;
    return { none: none.report, download: download.report, scheduled: scheduled.report, backupSpansMs: backupSpans.map(({ from, to }) => ({ from, to })) };
  } finally {
    rmSync(backupDir, { recursive: true, force: true });
  }
}
