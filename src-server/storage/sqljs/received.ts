/**
 * Statements as the client sent them (StatementRow.received, StatementRow.lrsAdded), for the
 * Statement Explorer. Two nullable columns of `statements`: `received` holds the JSON as received
 * only for the few statements that need it; `lrs_added` names the properties the LRS added as a
 * bit set (one byte), so the others are given back by taking those away from the stored
 * statement. Both are NULL on rows written before they existed: those show the stored statement.
 */
import type { LrsSetProperty } from '../../xapi/received-statement';
import type { Sql } from './sql';

/** Bit i of `lrs_added` stands for LRS_ADDED_BITS[i]. Stored in every row: append only, never reorder. */
const LRS_ADDED_BITS: readonly LrsSetProperty[] = ['id', 'timestamp', 'version', 'stored', 'authority'];

/**
 * Adds the columns when missing (ALTER TABLE ADD COLUMN, cheap: existing rows are not rewritten),
 * so data directories written before them open unchanged.
 */
export function ensureReceivedColumns(sql: Sql): void {
  const columns = new Set(sql.all("SELECT name FROM pragma_table_info('statements')").map(([name]) => name as string));
  if (!columns.has('received')) sql.db.exec('ALTER TABLE statements ADD COLUMN received TEXT');
  if (!columns.has('lrs_added')) sql.db.exec('ALTER TABLE statements ADD COLUMN lrs_added INTEGER');
}

/** The column values of a row: `received` as JSON text, `lrs_added` as bits (NULL when not recorded). */
export function receivedColumns(row: { received?: unknown; lrsAdded?: readonly LrsSetProperty[] }): [string | null, number | null] {
  const received = row.received === undefined ? null : JSON.stringify(row.received);
  if (row.lrsAdded === undefined) return [received, null];
  let bits = 0;
  for (const name of row.lrsAdded) {
    const bit = LRS_ADDED_BITS.indexOf(name);
    if (bit < 0) throw new RangeError(`no lrs_added bit for ${JSON.stringify(name)}`);
    bits |= 1 << bit;
  }
  return [received, bits];
}

/** The properties an `lrs_added` bit set names; undefined for NULL (not recorded). */
export function lrsAddedNames(lrsAdded: unknown): LrsSetProperty[] | undefined {
  if (typeof lrsAdded !== 'number') return undefined;
  return LRS_ADDED_BITS.filter((_, bit) => (lrsAdded & (1 << bit)) !== 0);
}
