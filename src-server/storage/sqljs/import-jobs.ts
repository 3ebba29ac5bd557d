/**
 * Import jobs in the embedded database (admin/import-jobs.ts): one row per job, the job kept whole
 * as JSON, with the columns a listing needs. One operation writes a job (insert or replace), so
 * replay leaves every job as it last was. The data directory's lock makes this process the only
 * one that runs jobs: there is no lease to keep.
 */
import type { ImportJobRecord } from '../storage';
import type { ApplyState } from './apply-state';
import type { Sql } from './sql';

export interface PutImportJobOp {
  t: 'putImportJob';
  job: ImportJobRecord;
}

export function ensureImportJobsTable(sql: Sql): void {
  sql.db.exec(`
    CREATE TABLE IF NOT EXISTS import_jobs (
      id TEXT PRIMARY KEY,
      store_id TEXT NOT NULL,
      state TEXT NOT NULL,
      created_at TEXT NOT NULL,
      job TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS import_jobs_store ON import_jobs (store_id, created_at);
  `);
}

export function applyPutImportJob(state: ApplyState, op: PutImportJobOp): void {
  const { job } = op;
  state.sql.run('INSERT OR REPLACE INTO import_jobs (id, store_id, state, created_at, job) VALUES (?, ?, ?, ?, ?)', [
    job.id,
    job.storeId,
    job.state,
    job.createdAt,
    JSON.stringify(job),
  ]);
}

export function findImportJobRow(sql: Sql, storeId: string, id: string): ImportJobRecord | null {
  const row = sql.first('SELECT job FROM import_jobs WHERE store_id = ? AND id = ?', [storeId, id]);
  return row ? (JSON.parse(row[0] as string) as ImportJobRecord) : null;
}

export function listImportJobRows(sql: Sql, query: { storeId: string } | { unfinished: true }): ImportJobRecord[] {
  const rows =
    'storeId' in query
      ? sql.all('SELECT job FROM import_jobs WHERE store_id = ? ORDER BY created_at DESC, id DESC', [query.storeId])
      : sql.all("SELECT job FROM import_jobs WHERE state IN ('running', 'paused') ORDER BY created_at, id");
  return rows.map((row) => JSON.parse(row[0] as string) as ImportJobRecord);
}
