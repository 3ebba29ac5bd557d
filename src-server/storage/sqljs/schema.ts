/**
 * The embedded database's schema. Stores are referred to by a small integer (`stores.num`) in the
 * statement tables: a Store id is a long string, and it would otherwise sit in every row and every
 * index entry (about a quarter of a statement's footprint in memory).
 *
 * Every "latest N" query walks an index whose last column is `seq` (the rowid of `statements`,
 * implicit at the end of each of its indexes), so it never sorts (docs/design.md, "Storage on sql.js").
 */
import { ensureActivitiesTable } from './activities';
import { ensureBenchTables } from './bench';
import { ensureForwarderTables } from './forwarders';
import { ensureDocumentSchema } from './documents';
import { ensureErasureTables } from './erasure';
import { ensureNameTables } from './explorer-names';
import { ensureIngestionTables } from './ingestion';
import { ensureReceivedColumns } from './received';
import { ensureWarningsColumn } from './statement-writes';
import { ensureRefusalsTable } from './refusals';
import { ensureImportJobsTable } from './import-jobs';
import { ensureAuditTable } from './audit-log';
import type { Sql } from './sql';
import { registerStatementText } from './statement-codec';
import { ensureStatementTargets } from './statement-targets';
import { ensureStoreCountsTable, writeStoreCounts } from './store-counts';
import type { ApplyState } from './apply-state';
import { ensureStoreLimitsColumn } from './stores';
import { ensureTermTables } from './terms';

export const SCHEMA_VERSION = 1;

const SCHEMA_V1 = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE stores (
  num INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  environment TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  store_id TEXT NOT NULL,
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  scopes TEXT NOT NULL,
  environment TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  expires_at TEXT,
  revoked_at TEXT,
  replaced_by TEXT
);
CREATE INDEX api_keys_store ON api_keys (store_id);

CREATE TABLE statements (
  seq INTEGER PRIMARY KEY,
  store_num INTEGER NOT NULL,
  statement_id TEXT NOT NULL,
  statement TEXT NOT NULL,
  signature TEXT NOT NULL,
  stored TEXT NOT NULL,
  stored_ms INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  verb_id TEXT NOT NULL,
  registration TEXT,
  voided INTEGER NOT NULL DEFAULT 0,
  voids_statement_id TEXT,
  UNIQUE (store_num, statement_id)
);
CREATE INDEX statements_store ON statements (store_num);
CREATE INDEX statements_verb ON statements (store_num, verb_id);
CREATE INDEX statements_registration ON statements (store_num, registration) WHERE registration IS NOT NULL;
CREATE INDEX statements_voided ON statements (store_num) WHERE voided = 1;
CREATE INDEX statements_voiding ON statements (store_num, voids_statement_id) WHERE voids_statement_id IS NOT NULL;

CREATE TABLE attachments (
  store_num INTEGER NOT NULL,
  sha2 TEXT NOT NULL,
  content_type TEXT NOT NULL,
  content BLOB NOT NULL,
  UNIQUE (store_num, sha2)
);

-- seq comes from the same counter as statements.seq, so the Explorer pages over both by seq.
CREATE TABLE rejections (
  seq INTEGER PRIMARY KEY,
  store_num INTEGER NOT NULL,
  received_at TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  statement_id TEXT,
  payload TEXT NOT NULL,
  error TEXT NOT NULL,
  agent TEXT,
  verb_id TEXT,
  activity_id TEXT
);
CREATE INDEX rejections_store ON rejections (store_num);
CREATE INDEX rejections_agent ON rejections (store_num, agent) WHERE agent IS NOT NULL;
CREATE INDEX rejections_verb ON rejections (store_num, verb_id) WHERE verb_id IS NOT NULL;
CREATE INDEX rejections_activity ON rejections (store_num, activity_id) WHERE activity_id IS NOT NULL;

INSERT INTO meta (key, value) VALUES ('schema_version', 1), ('journal_seq', 0), ('last_seq', 0);
`;

export interface Meta {
  schemaVersion: number;
  /** The last journal record this database image contains. */
  journalSeq: number;
  /** The highest statement/rejection seq ever handed out (rows may since have been deleted). */
  lastSeq: number;
}

/** Creates the schema in an empty database; refuses a database from a newer release. */
export function ensureSchema(sql: Sql): Meta {
  const hasMeta = sql.first("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (!hasMeta) sql.transaction(() => sql.db.exec(SCHEMA_V1));
  const meta = readMeta(sql);
  if (meta.schemaVersion > SCHEMA_VERSION) {
    throw new Error(`the database has schema version ${meta.schemaVersion}; this release reads up to ${SCHEMA_VERSION}`);
  }
  // Tables added after version 1, created when missing (IF NOT EXISTS), so older data directories open;
  // some fill themselves from the statements' text (statement-codec.ts).
  registerStatementText(sql);
  ensureDocumentSchema(sql);
  ensureActivitiesTable(sql);
  ensureStatementTargets(sql);
  ensureIngestionTables(sql); // console statistics
  ensureReceivedColumns(sql); // statements as received, for the Explorer
  ensureWarningsColumn(sql); // statements accepted with warnings
  ensureStoreLimitsColumn(sql); // a Store's own limits
  ensureTermTables(sql); // index terms by id (converts the earlier statement_terms)
  ensureRefusalsTable(sql); // the log of refused requests
  ensureBenchTables(sql); // the Test Bench's packages and launches
  ensureNameTables(sql); // the Explorer's names (after the term tables: it fills itself from them)
  ensureErasureTables(sql); // the erasure ledger
  ensureForwarderTables(sql); // forwarders, their cursors and dead letters
  ensureImportJobsTable(sql); // imports of statements, kept for resuming
  ensureAuditTable(sql); // the audit log of admin actions
  ensureStoreCountsTable(sql); // each Store's counts as of the image, read at open instead of counting
  return meta;
}

export function readMeta(sql: Sql): Meta {
  const values = new Map(sql.all('SELECT key, value FROM meta').map(([k, v]) => [k as string, Number(v)]));
  return {
    schemaVersion: values.get('schema_version') ?? 0,
    journalSeq: values.get('journal_seq') ?? 0,
    lastSeq: values.get('last_seq') ?? 0,
  };
}

/**
 * The journal seq and seq high-water mark an image holds, written just before it is taken; with
 * `counts`, each Store's counts too (store-counts.ts), so the next open need not count the rows.
 */
export function writeMeta(sql: Sql, meta: Pick<Meta, 'journalSeq' | 'lastSeq'>, counts?: ApplyState['counts']): void {
  sql.transaction(() => {
    sql.run("UPDATE meta SET value = ? WHERE key = 'journal_seq'", [meta.journalSeq]);
    sql.run("UPDATE meta SET value = ? WHERE key = 'last_seq'", [meta.lastSeq]);
    if (counts) writeStoreCounts(sql, meta.journalSeq, counts);
  });
}
