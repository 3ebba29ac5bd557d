/**
 * Partial updates of a row by id (Stores, API keys). One map per table, from patch field to
 * column, says which fields a patch may set: the same map picks what reaches the journal and
 * writes it.
 */
import type { Sql } from './sql';

export type PatchColumns<P> = Record<keyof P, string>;

/** The fields of `patch` that are set (undefined means "leave as it is"), in the map's order. */
export function definedFields<P extends object>(patch: P, columns: PatchColumns<P>): Partial<P> {
  const out: Partial<P> = {};
  for (const key of Object.keys(columns) as Array<keyof P>) if (patch[key] !== undefined) out[key] = patch[key];
  return out;
}

/** Applies a journaled patch. The caller wraps it in a transaction. */
export function applyPatch<P extends object>(sql: Sql, table: string, columns: PatchColumns<P>, id: string, patch: P): void {
  const sets: string[] = [];
  const params: Array<string | null> = [];
  for (const [key, column] of Object.entries(columns) as Array<[keyof P, string]>) {
    const value = patch[key];
    if (value === undefined) continue;
    sets.push(`${column} = ?`);
    params.push(value as string | null);
  }
  if (sets.length === 0) return;
  sql.run(`UPDATE ${table} SET ${sets.join(', ')} WHERE id = ?`, [...params, id]);
}
