/**
 * The logs of refused requests in PostgreSQL: one table for every Store (`store_num`) and the
 * service (`store_num` 0: requests that name no Store), newest first by id.
 */
import type { RefusalPage, RefusalQuery, RefusalRow, StoredRefusal } from '../storage';
import type { PostgresDatabase, Tx } from './database';

/** `store_num` of the service-wide log: Store numbers start at 1. */
export const SERVICE_WIDE = 0;

export const REFUSAL_COLUMNS = 'id, at, last_at, count, method, path, status, code, reason, key_id, client, user_agent';

export interface RefusalDbRow {
  id: number;
  at: string;
  last_at: string;
  count: number;
  method: string;
  path: string;
  status: number;
  code: string;
  reason: string;
  key_id: string | null;
  client: string;
  user_agent: string | null;
}

export function toRefusal(row: RefusalDbRow, storeId: string | null): StoredRefusal {
  return {
    id: row.id,
    storeId,
    at: row.at,
    lastAt: row.last_at,
    count: row.count,
    method: row.method,
    path: row.path,
    status: row.status,
    code: row.code,
    reason: row.reason,
    keyId: row.key_id,
    client: row.client,
    userAgent: row.user_agent,
  };
}

/** Inserts the rows (each with its Store number), in order; resolves with their ids. */
export async function insertRefusalRows(tx: Tx, rows: Array<RefusalRow & { storeNum: number }>): Promise<number[]> {
  const ids: number[] = [];
  for (const r of rows) {
    const { rows: inserted } = await tx.query<{ id: number }>(
      `INSERT INTO refusals (store_num, at, last_at, last_ms, count, method, path, status, code, reason, key_id, client, user_agent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
      [r.storeNum, r.at, r.lastAt, Date.parse(r.lastAt), r.count, r.method, r.path, r.status, r.code, r.reason, r.keyId, r.client, r.userAgent],
    );
    ids.push(inserted[0]!.id);
  }
  return ids;
}

/** One page of a log, newest first. */
export async function listRefusalRows(db: PostgresDatabase, storeNum: number, storeId: string | null, query: Pick<RefusalQuery, 'limit' | 'beforeId'>): Promise<RefusalPage> {
  const rows = await db.query<RefusalDbRow>(
    `SELECT ${REFUSAL_COLUMNS} FROM refusals WHERE store_num = $1 AND id < $2 ORDER BY id DESC LIMIT $3`,
    [storeNum, query.beforeId ?? Number.MAX_SAFE_INTEGER, query.limit + 1],
  );
  const refusals = rows.slice(0, query.limit).map((row) => toRefusal(row, storeId));
  return { refusals, nextBeforeId: rows.length > query.limit ? refusals[refusals.length - 1]!.id : null };
}
