/**
 * What applying journal operations works on (ops.ts applies them, each domain's module defines its
 * own): the database and the lookups the hot paths keep beside it. Below every domain: they all
 * read it, none of them needs another domain or the registry for it.
 */
import type { DefinitionCache } from './activities';
import type { NameCache } from './explorer-names';
import type { PendingIngestion } from './ingestion';
import type { Sql } from './sql';
import type { StatementEncoder } from './statement-codec';
import type { TermIds } from './terms';

interface StoreCounts {
  statements: number;
  rejections: number;
}

/** What applying operations keeps besides the database: lookups the hot paths need. */
export interface ApplyState {
  sql: Sql;
  /** Store id → store number. */
  storeNums: Map<string, number>;
  counts: Map<number, StoreCounts>;
  /** The highest statement/rejection seq applied. */
  lastSeq: number;
  /** Stored Activity definitions already read (activities.ts, DefinitionCache). */
  definitions: DefinitionCache;
  /** Ingestion counts applied but not yet written (ingestion.ts). */
  ingestion: PendingIngestion;
  /** Index term ids already looked up (terms.ts). */
  termIds: TermIds;
  /** The Explorer's names already kept (explorer-names.ts). */
  names: NameCache;
  /** Encodes the statement column's compact form (statement-codec.ts), its buffers kept between rows. */
  encoder: StatementEncoder;
}

/**
 * ISO 8601 → epoch milliseconds. Sub-millisecond digits are dropped; `stored` times are whole
 * milliseconds (the LRS sets them), so `stored_ms > since` and `stored_ms <= until` stay exact.
 */
export function toMs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 time: ${JSON.stringify(iso)}`);
  return ms;
}
