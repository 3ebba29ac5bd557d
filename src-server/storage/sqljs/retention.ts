/**
 * Retention of the rejected-statement log: per Store, rejections beyond the newest `maxPerStore`
 * and those older than `maxAgeDays` are deleted by a journaled operation, run at open and then
 * periodically, never on the write path. The ingestion statistics (ingestion.ts) are left as they
 * are: pruning the log does not rewrite how many statements were refused.
 *
 * The operation carries every bound it deletes by (seq and received time), decided when it is
 * planned, so replay deletes exactly the same rows. One operation deletes at most PRUNE_CHUNK rows,
 * so a large backlog is pruned in short steps that let requests run in between.
 */
import type { RetentionBounds } from '../retention-bounds';
import type { ApplyState } from './apply-state';

export { DEFAULT_RETENTION_BOUNDS, DEFAULT_RETENTION_INTERVAL_MS } from '../retention-bounds';
export type {  RetentionBounds } from '../retention-bounds';

/** Rows one operation deletes at most (a few ms of work; requests run between operations). */
export const PRUNE_CHUNK = 5_000;
const DAY_MS = 24 * 60 * 60_000;

export interface PruneRejectionsOp {
  t: 'pruneRejections';
  storeNum: number;
  /** Rows with seq up to this one are beyond the count kept (0: none). */
  throughSeq: number;
  /** Rows received before this time (epoch ms) are too old. */
  beforeMs: number;
  /** Only rows up to this seq: the chunk's end. */
  maxSeq: number;
}

/** The next pruning step for one Store; null when nothing is due. */
export function planPruneRejections(
  state: ApplyState,
  storeNum: number,
  retention: RetentionBounds,
  nowMs: number,
): PruneRejectionsOp | null {
  const { sql } = state;
  const count = state.counts.get(storeNum)?.rejections ?? 0;
  if (count === 0) return null;
  // The seq of the newest row beyond the count kept: walk the Store's index from the newest.
  const beyond = count > retention.maxPerStore
    ? sql.first('SELECT seq FROM rejections INDEXED BY rejections_store WHERE store_num = ? ORDER BY seq DESC LIMIT 1 OFFSET ?', [
        storeNum,
        retention.maxPerStore,
      ])
    : undefined;
  const throughSeq = (beyond?.[0] as number | undefined) ?? 0;
  const beforeMs = nowMs - retention.maxAgeDays * DAY_MS;
  // The chunk's end: the PRUNE_CHUNK-th row due in seq order, or the last one due.
  const [maxSeq] = sql.first(
    `SELECT max(seq) FROM (SELECT seq FROM rejections INDEXED BY rejections_store
       WHERE store_num = ? AND (seq <= ? OR received_ms < ?) ORDER BY seq LIMIT ?)`,
    [storeNum, throughSeq, beforeMs, PRUNE_CHUNK],
  )!;
  if (maxSeq === null) return null;
  return { t: 'pruneRejections', storeNum, throughSeq, beforeMs, maxSeq: maxSeq as number };
}

/** Applies a `pruneRejections` operation. The caller wraps it in a transaction. */
export function applyPruneRejections(state: ApplyState, op: PruneRejectionsOp): void {
  const { sql } = state;
  sql.run('DELETE FROM rejections WHERE store_num = ? AND seq <= ? AND (seq <= ? OR received_ms < ?)', [
    op.storeNum,
    op.maxSeq,
    op.throughSeq,
    op.beforeMs,
  ]);
  const counts = state.counts.get(op.storeNum);
  if (counts) counts.rejections -= sql.db.getRowsModified();
}

/** Runs `run` soon after open and then every `intervalMs` (never two at once); returns the stop. */
export function scheduleRetention(run: () => Promise<unknown>, intervalMs: number): () => void {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    void run()
      .catch(() => {})
      .finally(() => (running = false));
  };
  const first = setImmediate(tick);
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => {
    clearImmediate(first);
    clearInterval(timer);
  };
}
