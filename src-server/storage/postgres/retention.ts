/**
 * Retention on PostgreSQL (bounds in ../retention-bounds.ts): per Store, rejections beyond the
 * newest `maxPerStore` or older than `maxAgeDays` are deleted, and each log of refused requests
 * (the Stores' and the service's) by the same bounds. Deleted in chunks of PRUNE_CHUNK rows, each
 * its own short transaction, by one process at a time (the others skip that round).
 */
import type { RetentionBounds } from '../retention-bounds';
import type { StoreRecord } from '../storage';
import type { PostgresDatabase } from './database';
import { SERVICE_WIDE } from './refusals';

const PRUNE_CHUNK = 5_000;
const DAY_MS = 24 * 60 * 60_000;
/** The advisory lock (two-int form) of a pruning round. */
const PRUNE_LOCK = [0x4c6f7265, 3] as const;

/** Deletes what the bounds leave out; resolves with how many rejections went. */
export async function pruneLogs(
  db: PostgresDatabase,
  boundsFor: (store: StoreRecord & { num: number }) => RetentionBounds,
  serviceBounds: RetentionBounds,
  stores: Array<StoreRecord & { num: number }>,
  nowMs: number,
): Promise<number> {
  const client = await db.pool.connect();
  let rejections = 0;
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [...PRUNE_LOCK]);
    if (!rows[0]?.locked) return 0;
    try {
      for (const store of stores) {
        const bounds = boundsFor(store);
        rejections += await pruneTable(db, 'rejections', 'seq', 'received_ms', store.num, bounds, nowMs);
        await pruneTable(db, 'refusals', 'id', 'last_ms', store.num, bounds, nowMs);
      }
      await pruneTable(db, 'refusals', 'id', 'last_ms', SERVICE_WIDE, serviceBounds, nowMs);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [...PRUNE_LOCK]);
    }
  } finally {
    client.release();
  }
  return rejections;
}

async function pruneTable(db: PostgresDatabase, table: string, order: string, timeColumn: string, storeNum: number, bounds: RetentionBounds, nowMs: number): Promise<number> {
  const beforeMs = nowMs - bounds.maxAgeDays * DAY_MS;
  const [beyond] = await db.query<{ last: number }>(`SELECT ${order} AS last FROM ${table} WHERE store_num = $1 ORDER BY ${order} DESC OFFSET $2 LIMIT 1`, [
    storeNum,
    bounds.maxPerStore,
  ]);
  const throughKey = beyond?.last ?? 0;
  let deleted = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM ${table} WHERE store_num = $1 AND ${order} IN (
         SELECT ${order} FROM ${table} WHERE store_num = $1 AND (${order} <= $2 OR ${timeColumn} < $3) ORDER BY ${order} LIMIT $4)
       RETURNING 1`,
      [storeNum, throughKey, beforeMs, PRUNE_CHUNK],
    );
    deleted += rows.length;
    if (rows.length < PRUNE_CHUNK) return deleted;
  }
}
