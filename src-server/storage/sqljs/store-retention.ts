/**
 * A Store's retention in the embedded database (docs/erasure-and-retention.md): statements,
 * rejections and refused requests older than the Store keeps them, removed a step at a time. A
 * step reads the oldest rows by receipt order (seq, or id for refusals) and takes those stored
 * before the cutoff, stopping at the first one inside the period (receipt order is stored-time
 * order but for statements imported with older times, which wait until those before them go).
 * The `retainRecords` record carries the seqs and ids it removes, so replay removes the same rows;
 * statements go through the shared deletion (statement-deletion.ts).
 */
import { RETENTION_STEP_ROWS } from '../erasure';
import type { RetentionCutoffs, RetentionStepResult } from '../erasure';
import type { ApplyState } from './apply-state';
import type { Sql } from './sql';
import { deleteStatementRows, unusedAttachments } from './statement-deletion';

export interface RetainRecordsOp {
  t: 'retainRecords';
  storeNum: number;
  seqs: number[];
  attachments: string[];
  rejections: number[];
  refusals: number[];
}

/** The oldest keys whose time is before the cutoff, up to a step's rows, stopping at the first newer one. */
function oldest(sql: Sql, query: string, storeNum: number, beforeMs: number | null): number[] {
  if (beforeMs === null) return [];
  const keys: number[] = [];
  for (const [key, ms] of sql.all(query, [storeNum, RETENTION_STEP_ROWS])) {
    if ((ms as number) >= beforeMs) break;
    keys.push(key as number);
  }
  return keys;
}

/** The next step for one Store; null when nothing is due. */
export function planRetainRecords(state: ApplyState, storeNum: number, cutoffs: RetentionCutoffs): RetainRecordsOp | null {
  const { sql } = state;
  const seqs = oldest(sql, 'SELECT seq, stored_ms FROM statements INDEXED BY statements_store WHERE store_num = ? ORDER BY seq LIMIT ?', storeNum, cutoffs.statementsBeforeMs);
  const rejections = oldest(sql, 'SELECT seq, received_ms FROM rejections INDEXED BY rejections_store WHERE store_num = ? ORDER BY seq LIMIT ?', storeNum, cutoffs.rejectionsBeforeMs);
  const refusals = oldest(sql, 'SELECT id, last_ms FROM refusals INDEXED BY refusals_store WHERE store_num = ? ORDER BY id LIMIT ?', storeNum, cutoffs.refusalsBeforeMs);
  if (seqs.length + rejections.length + refusals.length === 0) return null;
  return { t: 'retainRecords', storeNum, seqs, attachments: unusedAttachments(sql, storeNum, seqs), rejections, refusals };
}

/** Applies a `retainRecords` record (inside the caller's transaction). */
export function applyRetainRecords(state: ApplyState, op: RetainRecordsOp): RetentionStepResult {
  const { sql } = state;
  const statements = deleteStatementRows(state, op.storeNum, op.seqs, op.attachments);
  let rejections = 0;
  for (const seq of op.rejections) {
    sql.run('DELETE FROM rejections WHERE seq = ? AND store_num = ?', [seq, op.storeNum]);
    rejections += sql.db.getRowsModified();
  }
  const counts = state.counts.get(op.storeNum);
  if (counts) counts.rejections -= rejections;
  let refusals = 0;
  for (const id of op.refusals) {
    sql.run('DELETE FROM refusals WHERE id = ? AND store_num = ?', [id, op.storeNum]);
    refusals += sql.db.getRowsModified();
  }
  return { statements, rejections, refusals };
}
