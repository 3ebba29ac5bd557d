/**
 * Sequence numbers of statements and rejections, and the highest one a reader may trust.
 *
 * Seqs come from one sequence, taken inside the writing transaction, so they are not committed in
 * order: seq 7 may commit after seq 8 has been read. A reader that paged past 8 would never see 7.
 * So reads stop at the *settled* seq: the highest S such that every seq up to S is committed or
 * will never be. Each writer, before it takes seqs, holds a transaction-scoped shared advisory
 * lock keyed by the sequence's last value L (a lease: "my seqs are all above L"); the lock is
 * released only after the commit is visible. A reader reads the sequence's last value V, then the
 * leases in pg_locks, and settles at min(V, lowest lease). Why that is safe:
 * - a seq s ≤ V was taken before the reader read V, so its writer's lease was already held then;
 *   either the lease is still held (S ≤ its L < s) or the writer has finished (its rows are
 *   committed and visible to the reader's next statement, or rolled back);
 * - a seq taken after the reader read V is above V.
 * The leases are the advisory locks in the bigint form (objsubid 1); the migration lock uses the
 * two-int form, so nothing else of Lore's lands in this key space.
 */
import type { PostgresDatabase, Tx } from './database';

/** Takes the lease, then `count` seqs, ascending, in the caller's transaction. */
export async function takeSeqs(tx: Tx, count: number): Promise<number[]> {
  await tx.query(
    "SELECT pg_advisory_xact_lock_shared(CASE WHEN is_called THEN last_value ELSE last_value - 1 END) FROM record_seq",
  );
  const { rows } = await tx.query<{ seq: number }>("SELECT nextval('record_seq') AS seq FROM generate_series(1, $1)", [count]);
  return rows.map((row) => row.seq).sort((a, b) => a - b);
}

/** The settled seq (0 when nothing was ever written). */
export async function settledSeq(db: PostgresDatabase): Promise<number> {
  // Two statements, in this order: the last value first, then the leases.
  const [sequence] = await db.query<{ last: number }>(
    'SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS last FROM record_seq',
  );
  const [leases] = await db.query<{ lowest: number | null }>(
    `SELECT min((classid::bigint << 32) | objid::bigint) AS lowest FROM pg_locks
      WHERE locktype = 'advisory' AND objsubid = 1
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  const last = sequence?.last ?? 0;
  const lowest = leases?.lowest ?? null;
  return Math.max(0, lowest === null ? last : Math.min(last, lowest));
}
