/**
 * Import jobs in PostgreSQL (admin/import-jobs.ts): one row per job, the job kept whole as JSON,
 * and a lease (owner, until) so that of several processes on the database only one runs a job. A
 * process that dies stops renewing; once its lease has run out another process takes the job over.
 */
import type { ImportJobRecord } from '../storage';
import type { PostgresDatabase } from './database';

export async function putImportJobRow(db: PostgresDatabase, job: ImportJobRecord): Promise<void> {
  await db.query(
    `INSERT INTO import_jobs (id, store_id, state, created_at, job) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, job = EXCLUDED.job`,
    [job.id, job.storeId, job.state, job.createdAt, JSON.stringify(job)],
  );
}

export async function findImportJobRow(db: PostgresDatabase, storeId: string, id: string): Promise<ImportJobRecord | null> {
  const rows = await db.query<{ job: string }>('SELECT job FROM import_jobs WHERE store_id = $1 AND id = $2', [storeId, id]);
  return rows[0] ? (JSON.parse(rows[0].job) as ImportJobRecord) : null;
}

export async function listImportJobRows(db: PostgresDatabase, query: { storeId: string } | { unfinished: true }): Promise<ImportJobRecord[]> {
  const rows =
    'storeId' in query
      ? await db.query<{ job: string }>('SELECT job FROM import_jobs WHERE store_id = $1 ORDER BY created_at DESC, id DESC', [query.storeId])
      : await db.query<{ job: string }>("SELECT job FROM import_jobs WHERE state IN ('running', 'paused') ORDER BY created_at, id");
  return rows.map((row) => JSON.parse(row.job) as ImportJobRecord);
}

/** The database's clock decides whether a lease ran out: the processes' clocks need not agree. */
export async function claimImportJobRow(db: PostgresDatabase, id: string, owner: string, leaseMs: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE import_jobs SET lease_owner = $2, lease_until = clock_timestamp() + $3 * interval '1 millisecond'
     WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < clock_timestamp())
     RETURNING id`,
    [id, owner, leaseMs],
  );
  return rows.length > 0;
}
