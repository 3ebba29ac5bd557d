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
import type { ReadBounds } from '../storage';
import type { PostgresDatabase, Tx } from './database';

/**
 * Time leases, for X-Experience-API-Consistent-Through, keyed TIME_LEASE_BASE + a stored time
 * (ms), far above any seq lease. Two kinds: each process holds one at the floor of the stored
 * times it has stamped and not finished writing (stamp-watermark.ts: the xAPI layer stamps a
 * statement before its write reaches the database), and a write transaction holds one at the
 * earliest stored time it writes (for writers without a watermark, such as a migration). Each
 * process's leases are in its own clock: the processes' clocks need not agree.
 */
export const TIME_LEASE_BASE = 2 ** 52;

/**
 * Takes the leases, then `count` seqs, ascending, in the caller's transaction. `earliestStoredMs`:
 * the earliest `stored` of the statements written (none for rejections).
 */
export async function takeSeqs(tx: Tx, count: number, earliestStoredMs?: number): Promise<number[]> {
  if (earliestStoredMs !== undefined) {
    await tx.query('SELECT pg_advisory_xact_lock_shared($1::bigint)', [TIME_LEASE_BASE + earliestStoredMs]);
  }
  await tx.query(
    "SELECT pg_advisory_xact_lock_shared(CASE WHEN is_called THEN last_value ELSE last_value - 1 END) FROM record_seq",
  );
  const { rows } = await tx.query<{ seq: number }>("SELECT nextval('record_seq') AS seq FROM generate_series(1, $1)", [count]);
  return rows.map((row) => row.seq).sort((a, b) => a - b);
}

/** The settled seq (0 when nothing was ever written): lore_settled_seq (insert-function.ts) reads the two in this order, in one round trip. */
export async function settledSeq(db: PostgresDatabase): Promise<number> {
  const [row] = await db.prepared<{ settled: number }>('SELECT lore_settled_seq($1::bigint) AS settled', [TIME_LEASE_BASE]);
  return row?.settled ?? 0;
}

/**
 * The earliest time lease (the advisory locks of the bigint form at or above TIME_LEASE_BASE), then
 * the settled seq, in one round trip and in that order: a statement stored before the lease that
 * holds Consistent-Through back has committed before the settled seq is read, so the seq bound
 * covers it. Each statement of a VOLATILE function reads the locks anew. A migration's text: never
 * edited once released.
 */
export const READ_BOUNDS_FUNCTION = `
CREATE OR REPLACE FUNCTION lore_read_bounds(p_time_lease_base bigint, OUT earliest_time_lease bigint, OUT settled bigint) LANGUAGE plpgsql AS $fn$
BEGIN
  SELECT min((classid::bigint << 32) | objid::bigint) INTO earliest_time_lease FROM pg_locks
   WHERE locktype = 'advisory' AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND (classid::bigint << 32) | objid::bigint >= p_time_lease_base;
  settled := lore_settled_seq(p_time_lease_base);
END
$fn$;
`;

/**
 * X-Experience-API-Consistent-Through: just before the earliest stored time that a write under
 * way (its transaction's lease) or a process still stamping (its watermark, stamp-watermark.ts)
 * holds back, and before this process's own floor; and the settled seq, read after it.
 */
export async function readBounds(db: PostgresDatabase, floorMs: number): Promise<ReadBounds> {
  const [row] = await db.prepared<{ earliest_time_lease: number | null; settled: number | null }>('SELECT * FROM lore_read_bounds($1::bigint)', [TIME_LEASE_BASE]);
  return { consistentThrough: consistentThroughOf(floorMs, row?.earliest_time_lease ?? null), maxSeq: row?.settled ?? 0 };
}

/** Consistent-Through from this process's floor and the earliest time lease held (null: none). */
export function consistentThroughOf(floorMs: number, earliestTimeLease: number | null): string {
  return new Date(Math.min(floorMs, earliestTimeLease === null ? floorMs : earliestTimeLease - TIME_LEASE_BASE) - 1).toISOString();
}

/**
 * The earliest time lease as a one-row derived table (column earliest_time_lease), the lease base
 * bound as `baseParam`: what lore_read_bounds reads first, for a query that needs
 * Consistent-Through beside its own rows and no settled seq (a statement read by its id).
 */
export function earliestTimeLeaseTable(baseParam: string): string {
  return `(SELECT min((classid::bigint << 32) | objid::bigint) AS earliest_time_lease FROM pg_locks
   WHERE locktype = 'advisory' AND objsubid = 1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND (classid::bigint << 32) | objid::bigint >= ${baseParam}::bigint)`;
}
