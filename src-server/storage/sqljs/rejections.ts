/**
 * Rejections in the embedded database: statements the LRS refused, kept as received with the
 * reason for the Statement Explorer (explorer.ts). Their seq comes from the statements' counter.
 */
import type { RejectionRow } from '../storage';
import { toMs } from './apply-state';
import type { ApplyState } from './apply-state';

interface RejectionOpRow extends RejectionRow {
  seq: number;
}

export interface InsertRejectionsOp {
  t: 'insertRejections';
  storeNum: number;
  rows: RejectionOpRow[];
}

/** The operation that inserts `rows` with the next seqs; null for none. */
export function insertRejectionsOp(state: ApplyState, storeNum: number, rows: RejectionRow[]): InsertRejectionsOp | null {
  if (rows.length === 0) return null;
  const first = state.lastSeq + 1;
  return {
    t: 'insertRejections',
    storeNum,
    // Exactly the interface's fields: nothing else a caller attached reaches the journal.
    rows: rows.map((r, i) => ({
      seq: first + i,
      receivedAt: r.receivedAt,
      keyId: r.keyId,
      statementId: r.statementId,
      payload: r.payload,
      error: r.error,
      agent: r.agent,
      verbId: r.verbId,
      activityId: r.activityId,
    })),
  };
}

/** Applies an `insertRejections` operation. The caller wraps it in a transaction. */
export function applyInsertRejections(state: ApplyState, op: InsertRejectionsOp): void {
  const { sql } = state;
  for (const r of op.rows) {
    sql.run(
      `INSERT INTO rejections (seq, store_num, received_at, received_ms, key_id, statement_id, payload, error,
         agent, verb_id, activity_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.seq,
        op.storeNum,
        r.receivedAt,
        toMs(r.receivedAt),
        r.keyId,
        r.statementId,
        JSON.stringify(r.payload ?? null),
        JSON.stringify(r.error),
        r.agent,
        r.verbId,
        r.activityId,
      ],
    );
    state.lastSeq = Math.max(state.lastSeq, r.seq);
  }
  const counts = state.counts.get(op.storeNum);
  if (counts) counts.rejections += op.rows.length;
  // Console ingestion statistics (ingestion.ts): counted from this record, written in groups.
  state.ingestion.addRejections(op.storeNum, op.rows);
}
