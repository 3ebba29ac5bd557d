/**
 * Activity definitions in the embedded database: one row per (Store, Activity id), written in the
 * same journal record and SQL transaction as the statements that carried them.
 *
 * The merge (storage.ts, ActivityDefinitionRow) happens when the write is checked, before the
 * record is encoded: the record carries each resulting definition whole, so replay only writes
 * values (like every other operation) and never depends on the merge code of the release that
 * replays it. Definitions a batch leaves unchanged — the usual case, as content repeats its
 * definitions in every statement — are not in the record at all.
 */
import type { ActivityRecord, StatementRow } from '../storage';
import { keepActivityNames } from './explorer-names';
import type { NameCache } from './explorer-names';
import type { Sql } from './sql';
import { mergeChangesNothing, mergeDefinition } from '../activity-merge';

/**
 * Created at open when missing, so a data directory written before this table existed opens and
 * gains it (the schema version stays 1: the table is an addition nothing older reads).
 */
const ACTIVITIES_TABLE = `
CREATE TABLE IF NOT EXISTS activities (
  store_num INTEGER NOT NULL,
  activity_id TEXT NOT NULL,
  definition TEXT NOT NULL,
  updated TEXT NOT NULL,
  PRIMARY KEY (store_num, activity_id)
) WITHOUT ROWID;
`;

/** One definition as an `insertStatements` record carries it: the merged result, whole. */
export interface ActivityOpRow {
  id: string;
  definition: Record<string, unknown>;
  updated: string;
}

export function ensureActivitiesTable(sql: Sql): void {
  sql.db.exec(ACTIVITIES_TABLE);
}

interface KnownDefinition {
  /** As stored (JSON text), or null when the Store has none. */
  json: string | null;
  definition: Record<string, unknown>;
}

/**
 * The stored definitions the write path has read, so that a statement repeating its Activities'
 * definitions (the usual case) merges them without a query and a parse each. Kept current by
 * upsertActivities; cleared whenever definitions are deleted (deleteStoreRows) and when a failed
 * write makes the caches reload (load-database.ts, loadCaches). Bounded: it starts over when full.
 */
export class DefinitionCache {
  private static readonly LIMIT = 50_000;
  private readonly known = new Map<string, KnownDefinition>();

  get(sql: Sql, storeNum: number, activityId: string): KnownDefinition {
    const key = `${storeNum}\u0000${activityId}`;
    let entry = this.known.get(key);
    if (!entry) {
      const row = sql.first('SELECT definition FROM activities WHERE store_num = ? AND activity_id = ?', [storeNum, activityId]);
      const json = row ? (row[0] as string) : null;
      entry = { json, definition: json === null ? {} : (JSON.parse(json) as Record<string, unknown>) };
      this.remember(key, entry);
    }
    return entry;
  }

  stored(storeNum: number, activityId: string, json: string, definition: Record<string, unknown>): void {
    this.remember(`${storeNum}\u0000${activityId}`, { json, definition });
  }

  clear(): void {
    this.known.clear();
  }

  private remember(key: string, entry: KnownDefinition): void {
    if (this.known.size >= DefinitionCache.LIMIT) this.known.clear();
    this.known.set(key, entry);
  }
}

/**
 * Merges the definitions of the rows about to be inserted, in order, over the stored ones.
 * Returns the definitions that change, once each, with the `stored` time of the last row that
 * changed them. Reads only: the caller journals and applies the result.
 */
export function mergeActivityDefinitions(sql: Sql, definitions: DefinitionCache, storeNum: number, rows: StatementRow[]): ActivityOpRow[] {
  const current = new Map<string, KnownDefinition>();
  const changed = new Map<string, ActivityOpRow>();
  for (const row of rows) {
    for (const { activityId, definition } of row.activityDefinitions ?? []) {
      let entry = current.get(activityId);
      if (!entry) {
        entry = definitions.get(sql, storeNum, activityId);
        current.set(activityId, entry);
      }
      // The usual case, content repeating a definition: nothing to merge, stringify or write.
      if (entry.json !== null && mergeChangesNothing(entry.definition, definition)) continue;
      const merged = mergeDefinition(entry.definition, definition);
      const json = JSON.stringify(merged);
      if (json === entry.json || Object.keys(merged).length === 0) continue;
      current.set(activityId, { json, definition: merged });
      changed.set(activityId, { id: activityId, definition: merged, updated: row.stored });
    }
  }
  return [...changed.values()];
}

/** Applies an `insertStatements` record's definitions (replay does exactly this too), with the Explorer's names of them. */
export function upsertActivities(sql: Sql, caches: { definitions: DefinitionCache; names: NameCache }, storeNum: number, rows: ActivityOpRow[]): void {
  const { definitions } = caches;
  for (const row of rows) {
    const json = JSON.stringify(row.definition);
    sql.run('INSERT OR REPLACE INTO activities (store_num, activity_id, definition, updated) VALUES (?, ?, ?, ?)', [
      storeNum,
      row.id,
      json,
      row.updated,
    ]);
    definitions.stored(storeNum, row.id, json, row.definition);
  }
  keepActivityNames(sql, caches.names, storeNum, rows);
}

export function findActivityRow(sql: Sql, storeNum: number, activityId: string): ActivityRecord | null {
  const row = sql.first('SELECT definition, updated FROM activities WHERE store_num = ? AND activity_id = ?', [
    storeNum,
    activityId,
  ]);
  if (!row) return null;
  return { activityId, definition: JSON.parse(row[0] as string) as Record<string, unknown>, updated: row[1] as string };
}
