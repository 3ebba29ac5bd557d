/**
 * Stores in the embedded database: the checks and journal operations of their writes, applying
 * those, and the reads. Other tables refer to a Store by its number (`stores.num`), which
 * `ApplyState.storeNums` maps from its id.
 */
import { StorageDuplicateError, StorageNotFoundError } from '../errors';
import type { StorageStats, StoreRecord } from '../storage';
import { deleteStoreRows, KEPT_STORE_TABLES } from './empty-store';
import type { ApplyState } from './apply-state';
import { applyPatch, definedFields } from './patches';
import type { PatchColumns } from './patches';
import type { Row, Sql } from './sql';

export type StorePatch = Partial<Pick<StoreRecord, 'name' | 'updatedAt' | 'limits' | 'retention'>>;

export type StoreOp =
  | { t: 'insertStore'; num: number; store: StoreRecord }
  | { t: 'updateStore'; id: string; patch: StorePatch }
  /** The Store with every row it owns and its API keys. */
  | { t: 'deleteStore'; id: string };

const SELECT_COLUMNS = 'id, slug, name, environment, created_at, updated_at, limits, retention';
const PATCH_COLUMNS: PatchColumns<StorePatch> = { name: 'name', updatedAt: 'updated_at', limits: 'limits', retention: 'retention' };

/**
 * A Store's own limits (src-server/limits/service-limits.ts) are one nullable JSON column, added at open when
 * missing (cheap: existing rows are not rewritten), so data directories written before it open
 * unchanged. NULL means "no overrides"; journal records written before it carry none.
 */
export function ensureStoreLimitsColumn(sql: Sql): void {
  const columns = new Set(sql.all("SELECT name FROM pragma_table_info('stores')").map(([name]) => name as string));
  if (!columns.has('limits')) sql.db.exec('ALTER TABLE stores ADD COLUMN limits TEXT');
  // A Store's retention (limits/store-retention.ts), JSON like the limits; NULL: as the service does.
  if (!columns.has('retention')) sql.db.exec('ALTER TABLE stores ADD COLUMN retention TEXT');
}

function retentionColumn(retention: StoreRecord['retention']): string | null {
  return retention === undefined ? null : JSON.stringify(retention);
}

function limitsColumn(limits: StoreRecord['limits']): string | null {
  return limits === undefined || Object.keys(limits).length === 0 ? null : JSON.stringify(limits);
}

/** The Store's number, or StorageNotFoundError. */
export function requireStoreNum(state: ApplyState, storeId: string): number {
  const num = state.storeNums.get(storeId);
  if (num === undefined) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
  return num;
}

export function insertStoreOp(state: ApplyState, store: StoreRecord): StoreOp {
  if (state.storeNums.has(store.id)) {
    throw new StorageDuplicateError('store_exists', `a Store with id ${store.id} exists`);
  }
  if (state.sql.first('SELECT 1 FROM stores WHERE slug = ?', [store.slug])) {
    throw new StorageDuplicateError('slug_taken', `the slug ${store.slug} is taken`);
  }
  const [num] = state.sql.first('SELECT coalesce(max(num), 0) + 1 FROM stores')!;
  return { t: 'insertStore', num: num as number, store: pickStore(store) };
}

/** Null when the patch sets nothing; StorageNotFoundError for an unknown Store. */
export function updateStoreOp(state: ApplyState, id: string, patch: StorePatch): StoreOp | null {
  requireStoreNum(state, id);
  const defined = definedFields(patch, PATCH_COLUMNS);
  return Object.keys(defined).length === 0 ? null : { t: 'updateStore', id, patch: defined };
}

/** Null for an unknown Store: deleting it again is not an error. */
export function deleteStoreOp(state: ApplyState, id: string): StoreOp | null {
  return state.storeNums.has(id) ? { t: 'deleteStore', id } : null;
}

/** Applies a Store operation. The caller wraps it in a transaction. */
export function applyStoreOp(state: ApplyState, op: StoreOp): void {
  const { sql } = state;
  switch (op.t) {
    case 'insertStore': {
      const s = op.store;
      sql.run(
        'INSERT INTO stores (num, id, slug, name, environment, created_at, updated_at, limits, retention) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [op.num, s.id, s.slug, s.name, s.environment, s.createdAt, s.updatedAt, limitsColumn(s.limits), retentionColumn(s.retention)],
      );
      state.storeNums.set(s.id, op.num);
      state.counts.set(op.num, { statements: 0, rejections: 0 });
      return;
    }
    case 'updateStore': {
      const { limits, retention, ...rest } = op.patch;
      applyPatch(sql, 'stores', PATCH_COLUMNS, op.id, rest);
      // JSON text, not a value a column binds as is.
      if (limits !== undefined) sql.run('UPDATE stores SET limits = ? WHERE id = ?', [limitsColumn(limits), op.id]);
      if (retention !== undefined) sql.run('UPDATE stores SET retention = ? WHERE id = ?', [retentionColumn(retention), op.id]);
      return;
    }
    case 'deleteStore': {
      const num = state.storeNums.get(op.id);
      if (num !== undefined) {
        deleteStoreRows(state, num);
        for (const table of KEPT_STORE_TABLES) sql.run(`DELETE FROM ${table} WHERE store_num = ?`, [num]);
      }
      sql.run('DELETE FROM api_keys WHERE store_id = ?', [op.id]);
      sql.run('DELETE FROM stores WHERE id = ?', [op.id]);
      state.storeNums.delete(op.id);
      if (num !== undefined) state.counts.delete(num);
      return;
    }
  }
}

export function findStoreRow(sql: Sql, by: 'id' | 'slug', value: string): StoreRecord | null {
  const row = sql.first(`SELECT ${SELECT_COLUMNS} FROM stores WHERE ${by} = ?`, [value]);
  return row ? toStore(row) : null;
}

export function listStoreRows(sql: Sql): StoreRecord[] {
  return sql.all(`SELECT ${SELECT_COLUMNS} FROM stores ORDER BY num`).map(toStore);
}

/** Statement and rejection counts of one Store (0 for an unknown one), or of all. */
export function countStoreRows(state: ApplyState, storeId?: string): Pick<StorageStats, 'statements' | 'rejections'> {
  if (storeId !== undefined) {
    const storeNum = state.storeNums.get(storeId);
    const counts = storeNum === undefined ? undefined : state.counts.get(storeNum);
    return { statements: counts?.statements ?? 0, rejections: counts?.rejections ?? 0 };
  }
  const total = { statements: 0, rejections: 0 };
  for (const counts of state.counts.values()) {
    total.statements += counts.statements;
    total.rejections += counts.rejections;
  }
  return total;
}

/** Copies exactly the interface's fields: nothing else a caller attached reaches the journal. */
function pickStore(s: StoreRecord): StoreRecord {
  return {
    id: s.id,
    slug: s.slug,
    name: s.name,
    environment: s.environment,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ...(s.limits !== undefined && Object.keys(s.limits).length > 0 ? { limits: { ...s.limits } } : {}),
    ...(s.retention !== undefined ? { retention: { ...s.retention } } : {}),
  };
}

function toStore(row: Row): StoreRecord {
  return {
    id: row[0] as string,
    slug: row[1] as string,
    name: row[2] as string,
    environment: row[3] as StoreRecord['environment'],
    createdAt: row[4] as string,
    updatedAt: row[5] as string,
    ...(typeof row[6] === 'string' ? { limits: JSON.parse(row[6]) as StoreRecord['limits'] } : {}),
    ...(typeof row[7] === 'string' ? { retention: JSON.parse(row[7]) as StoreRecord['retention'] } : {}),
  };
}
