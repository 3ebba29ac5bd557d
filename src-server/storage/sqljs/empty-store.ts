/**
 * Emptying a Store (the console's "Empty this test Store"): every row the Store owns goes, the
 * Store and its API keys stay, so content and authoring tools keep sending with the same keys.
 * One journal record, applied in one SQL transaction like every other write.
 */
import type { ApplyState } from './apply-state';
import { deleteStoreTerms } from './terms';

export interface EmptyStoreOp {
  t: 'emptyStore';
  storeNum: number;
}

/**
 * The tables of Store data, keyed by `store_num`. A test (test/storage/sqljs-console.test.ts)
 * fails when a table with a `store_num` column is in neither this list nor KEPT_STORE_TABLES, so
 * a new table is a decision, not an omission.
 */
export const STORE_DATA_TABLES = [
  'terms',
  'statement_targets',
  'statements',
  'attachments',
  'rejections',
  'refusals',
  'documents',
  'activities',
  'explorer_names',
  'explorer_name_words',
  'ingestion_minutes',
  'ingestion_top_hours',
  'ingestion_top_days',
  'bench_launches',
  'bench_document_writes',
  // Their statements are gone: nothing is left to redeliver.
  'forwarder_dead_letters',
  // The counts an image keeps (store-counts.ts): every image writes them whole again.
  'store_counts',
] as const;

/** Store-keyed tables that emptying keeps (settings of the Store rather than its data). */
export const KEPT_STORE_TABLES: readonly string[] = ['bench_packages', 'forwarders'];

/** Deletes every row of the Store's data: emptying it, and deleting it (stores.ts). */
export function deleteStoreRows(state: ApplyState, storeNum: number): void {
  // Postings are keyed by term id, not Store: they go with the Store's terms.
  deleteStoreTerms(state.sql, state.termIds, storeNum);
  for (const table of STORE_DATA_TABLES) state.sql.run(`DELETE FROM ${table} WHERE store_num = ?`, [storeNum]);
  state.definitions.clear();
  state.names.clear();
}

export function applyEmptyStore(state: ApplyState, op: EmptyStoreOp): void {
  deleteStoreRows(state, op.storeNum);
  const counts = state.counts.get(op.storeNum);
  if (counts) {
    counts.statements = 0;
    counts.rejections = 0;
  }
}
