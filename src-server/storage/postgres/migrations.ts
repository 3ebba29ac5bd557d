/**
 * The PostgreSQL schema, as versioned forward-only migrations. Each service process runs them at
 * start under one advisory lock, so several processes starting at once migrate once: the first
 * takes the lock and migrates, the others wait, then find nothing left to do. A database migrated
 * by a newer release (a version this one does not know) is refused with a message, never used.
 *
 * Layout (docs/postgres.md says why):
 * - Every table of a Store's rows starts its primary key with `store_num`: a Store's rows are
 *   together in every index, and a deployment can later distribute them by Store (Citus).
 * - Statements and rejections share one sequence (`record_seq`): the Explorer pages both by seq,
 *   and GET /statements pages by it in the order of receipt.
 * - Every "latest N" query walks an index ending in `seq`, so it never sorts.
 * - Texts as the service wrote them (statements as JSON text, ISO times): an answer sends the
 *   stored text as is, and the `_ms` columns serve the time ranges.
 */
import type { Tx } from './database';
import { fillExplorerNames } from './explorer-names';
import { FORWARDERS_MIGRATION } from './forwarders';
import { moveStoreTotals } from './ingestion';
import { INSERT_STATEMENTS_FROM_BYTES, INSERT_STATEMENTS_FUNCTION, INSERT_STATEMENTS_WITHOUT_NOTIFY } from './insert-function';
import { READ_BOUNDS_FUNCTION } from './record-seq';
import type { PostgresDatabase } from './database';

/** Append only: a released migration is never edited. Its index + 1 is its version. */
export const MIGRATIONS: readonly string[] = [
  `
CREATE TABLE stores (
  num integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  slug text NOT NULL UNIQUE,
  name text NOT NULL,
  environment text NOT NULL,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  limits text
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  store_num integer NOT NULL REFERENCES stores (num) ON DELETE CASCADE,
  store_id text NOT NULL,
  name text NOT NULL,
  secret_hash text NOT NULL,
  scopes text NOT NULL,
  environment text NOT NULL,
  created_at text NOT NULL,
  last_used_at text,
  expires_at text,
  revoked_at text,
  replaced_by text
);
CREATE INDEX api_keys_store ON api_keys (store_num);

CREATE SEQUENCE record_seq AS bigint CACHE 1;

CREATE TABLE statements (
  store_num integer NOT NULL,
  seq bigint NOT NULL,
  statement_id text NOT NULL,
  statement text NOT NULL,
  signature text NOT NULL,
  stored text NOT NULL,
  stored_ms bigint NOT NULL,
  key_id text NOT NULL,
  verb_id text NOT NULL,
  registration text,
  voided boolean NOT NULL DEFAULT false,
  voids_statement_id text,
  target_statement_id text,
  received text,
  lrs_added text[],
  warnings text,
  PRIMARY KEY (store_num, seq),
  UNIQUE (store_num, statement_id)
);
CREATE INDEX statements_verb ON statements (store_num, verb_id, seq);
-- statements/read/mine: a key's own statements.
CREATE INDEX statements_key ON statements (store_num, key_id, seq);
CREATE INDEX statements_registration ON statements (store_num, registration, seq) WHERE registration IS NOT NULL;
CREATE INDEX statements_voided ON statements (store_num, seq) WHERE voided;
CREATE INDEX statements_warned ON statements (store_num, seq) WHERE warnings IS NOT NULL;
CREATE INDEX statements_voiding ON statements (store_num, voids_statement_id) WHERE voids_statement_id IS NOT NULL;
CREATE INDEX statements_targeting ON statements (store_num, seq) WHERE target_statement_id IS NOT NULL;

CREATE TABLE terms (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_num integer NOT NULL,
  kind text NOT NULL,
  value text NOT NULL,
  UNIQUE (store_num, kind, value)
);
CREATE TABLE term_postings (
  store_num integer NOT NULL,
  term bigint NOT NULL,
  seq bigint NOT NULL,
  is_primary boolean NOT NULL,
  PRIMARY KEY (store_num, term, seq)
);
CREATE INDEX term_postings_primary ON term_postings (store_num, term, seq) WHERE is_primary;

CREATE TABLE attachments (
  store_num integer NOT NULL,
  sha2 text NOT NULL,
  content_type text NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (store_num, sha2)
);

CREATE TABLE activities (
  store_num integer NOT NULL,
  activity_id text NOT NULL,
  definition text NOT NULL,
  updated text NOT NULL,
  PRIMARY KEY (store_num, activity_id)
);

CREATE TABLE rejections (
  store_num integer NOT NULL,
  seq bigint NOT NULL,
  received_at text NOT NULL,
  received_ms bigint NOT NULL,
  key_id text NOT NULL,
  statement_id text,
  payload text NOT NULL,
  error text NOT NULL,
  agent text,
  verb_id text,
  activity_id text,
  registration text,
  PRIMARY KEY (store_num, seq)
);
CREATE INDEX rejections_agent ON rejections (store_num, agent, seq) WHERE agent IS NOT NULL;
CREATE INDEX rejections_verb ON rejections (store_num, verb_id, seq) WHERE verb_id IS NOT NULL;
CREATE INDEX rejections_activity ON rejections (store_num, activity_id, seq) WHERE activity_id IS NOT NULL;
CREATE INDEX rejections_registration ON rejections (store_num, registration, seq) WHERE registration IS NOT NULL;

-- Columns a kind of document does not use hold '' (not NULL), so the primary key keys them.
CREATE TABLE documents (
  store_num integer NOT NULL,
  kind text NOT NULL,
  activity_id text NOT NULL,
  agent text NOT NULL,
  registration text NOT NULL,
  doc_id text NOT NULL,
  content_type text NOT NULL,
  content bytea NOT NULL,
  etag text NOT NULL,
  updated text NOT NULL,
  updated_ms bigint NOT NULL,
  PRIMARY KEY (store_num, kind, activity_id, agent, registration, doc_id)
);

-- store_num 0: the service-wide log (requests that name no Store).
CREATE TABLE refusals (
  store_num integer NOT NULL,
  id bigint GENERATED ALWAYS AS IDENTITY,
  at text NOT NULL,
  last_at text NOT NULL,
  last_ms bigint NOT NULL,
  count integer NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  status integer NOT NULL,
  code text NOT NULL,
  reason text NOT NULL,
  key_id text,
  client text NOT NULL,
  user_agent text,
  PRIMARY KEY (store_num, id)
);

-- Console statistics, appended by each write (never updated in place, so concurrent writers
-- never wait on one hot row) and summed on read; ingestion.ts folds old rows together.
CREATE TABLE ingestion_minutes (
  store_num integer NOT NULL,
  minute bigint NOT NULL,
  accepted integer NOT NULL,
  voided integer NOT NULL,
  rejected integer NOT NULL
);
CREATE INDEX ingestion_minutes_store ON ingestion_minutes (store_num, minute);
CREATE INDEX ingestion_minutes_time ON ingestion_minutes (minute);
CREATE TABLE ingestion_top (
  store_num integer NOT NULL,
  unit text NOT NULL,
  kind text NOT NULL,
  period bigint NOT NULL,
  value text NOT NULL,
  count integer NOT NULL
);
CREATE INDEX ingestion_top_store ON ingestion_top (store_num, unit, kind, period);
CREATE INDEX ingestion_top_time ON ingestion_top (unit, kind, period);
`,
  `
-- The service processes sharing the database, by their last heartbeat (process-registry.ts).
CREATE TABLE service_processes (
  origin text PRIMARY KEY,
  seen_ms bigint NOT NULL
);
`,
  `
-- Settings every process of the deployment shares: the admin token's hash (admin/admin-token.ts).
CREATE TABLE service_settings (
  key text PRIMARY KEY,
  value text NOT NULL
);
`,
  // The Test Bench (src-server/bench/): packages, their files (rows, so every process serves
  // them) and launches. Files are written before their package's record, so they refer to the
  // Store only; a Store's deletion takes all three with it.
  `
CREATE TABLE bench_packages (
  store_num integer NOT NULL REFERENCES stores (num) ON DELETE CASCADE,
  id text NOT NULL,
  store_id text NOT NULL,
  kind text NOT NULL,
  title text NOT NULL,
  description text NOT NULL,
  files integer NOT NULL,
  bytes bigint NOT NULL,
  created_at text NOT NULL,
  reference text,
  PRIMARY KEY (store_num, id)
);

CREATE TABLE bench_package_files (
  store_num integer NOT NULL REFERENCES stores (num) ON DELETE CASCADE,
  package_id text NOT NULL,
  path text NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (store_num, package_id, path)
);

CREATE TABLE bench_launches (
  store_num integer NOT NULL REFERENCES stores (num) ON DELETE CASCADE,
  id text NOT NULL,
  store_id text NOT NULL,
  package_id text NOT NULL,
  unit_id text NOT NULL,
  registration text NOT NULL,
  actor text NOT NULL,
  session_id text,
  launch_mode text,
  fetch_secret_hash text,
  fetched_at text,
  key_id text,
  created_at text NOT NULL,
  PRIMARY KEY (store_num, id)
);
CREATE INDEX bench_launches_registration ON bench_launches (store_num, registration);

CREATE TABLE bench_document_writes (
  store_num integer NOT NULL REFERENCES stores (num) ON DELETE CASCADE,
  id bigint GENERATED ALWAYS AS IDENTITY,
  registration text NOT NULL,
  activity_id text NOT NULL,
  agent text NOT NULL,
  state_id text NOT NULL,
  method text NOT NULL,
  status integer NOT NULL,
  etag_before text,
  etag_after text,
  content_type text,
  content text,
  key_id text NOT NULL,
  at text NOT NULL,
  PRIMARY KEY (store_num, id)
);
CREATE INDEX bench_document_writes_registration ON bench_document_writes (store_num, registration, id);
`,
  // The Statement Explorer's names (explorer-names.ts): learners, verbs and Activities by the words
  // of their names. "C" order: a prefix is a range of bytes, and both backends order alike. Filled
  // from the data already there by MIGRATION_STEPS (the words come from code, not SQL).
  `
CREATE TABLE explorer_names (
  store_num integer NOT NULL,
  kind text NOT NULL,
  value text COLLATE "C" NOT NULL,
  name text NOT NULL,
  search text COLLATE "C" NOT NULL,
  PRIMARY KEY (store_num, kind, value)
);

-- Each word's row carries the words of its name (search): a lookup checks the phrase in the index.
CREATE TABLE explorer_name_words (
  store_num integer NOT NULL,
  kind text NOT NULL,
  word text COLLATE "C" NOT NULL,
  value text COLLATE "C" NOT NULL,
  search text COLLATE "C" NOT NULL,
  PRIMARY KEY (store_num, kind, word, value) INCLUDE (search)
);
`,
  // Forgetting a learner and a Store's retention (erasure.ts): the erasure ledger (by Store id: an
  // entry outlives its Store), the Store's retention settings, and an index of the few statements
  // that keep a copy as received, which an erasure reads.
  `
CREATE TABLE erasures (
  id text PRIMARY KEY,
  store_id text NOT NULL,
  at text NOT NULL,
  salt text NOT NULL,
  ifi_hashes text NOT NULL,
  counts text NOT NULL
);
CREATE INDEX erasures_store ON erasures (store_id, at);
ALTER TABLE stores ADD COLUMN retention text;
CREATE INDEX statements_received ON statements (store_num, seq) WHERE received IS NOT NULL;
`,
  // Forwarders, their cursors and leases, and their dead letters (forwarders.ts).
  FORWARDERS_MIGRATION,
  `
-- Imports of statements (import-jobs.ts): each job whole as JSON, and the lease of the process running it.
-- Re-runnable (IF NOT EXISTS): a test takes back an earlier migration and everything after it.
CREATE TABLE IF NOT EXISTS import_jobs (
  id text PRIMARY KEY,
  store_id text NOT NULL,
  state text NOT NULL,
  created_at text NOT NULL,
  job text NOT NULL,
  lease_owner text,
  lease_until timestamptz
);
CREATE INDEX IF NOT EXISTS import_jobs_store ON import_jobs (store_id, created_at);
`,
  // The audit log of admin actions (audit-log.ts): service-wide, pruned by age.
  `
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at text NOT NULL,
  at_ms bigint NOT NULL,
  action text NOT NULL,
  outcome text NOT NULL,
  store text,
  target text,
  actor text NOT NULL,
  actor_detail text,
  error_code text,
  detail jsonb
);
CREATE INDEX audit_log_at ON audit_log (at_ms);
`,
  // A batch of new statements written by one call (insert-function.ts): one round trip, not ~17.
  INSERT_STATEMENTS_FUNCTION,
  // Its notification sent after the COMMIT, gathered (change-announcer.ts), not in each write's transaction.
  INSERT_STATEMENTS_WITHOUT_NOTIFY,
  // GET /statements' Consistent-Through and settled seq in one round trip (record-seq.ts).
  READ_BOUNDS_FUNCTION,
  // Each Store's accepted statements of the minutes before `through_minute`, kept by the fold
  // (ingestion.ts): a count reads this row and the Store's last hour of minutes, not a year of them.
  // Filled by its step below. Safe to run again, as the functions' migrations are (a test replays
  // the later migrations).
  `
CREATE TABLE IF NOT EXISTS ingestion_totals (
  store_num integer PRIMARY KEY,
  through_minute bigint NOT NULL,
  accepted bigint NOT NULL
);
`,
  // The statements' JSON given as one bytea, not an escaped array literal (insert-function.ts).
  INSERT_STATEMENTS_FROM_BYTES,
];

/**
 * Work a migration needs beyond its SQL, by version: run in the migration's transaction right after
 * it, so a database is never left at that version without it.
 */
const MIGRATION_STEPS: Readonly<Record<number, (tx: Tx) => Promise<void>>> = {
  5: fillExplorerNames,
  // The Stores' totals from the history found, as the fold of every period makes them.
  13: (tx) => moveStoreTotals(tx, 'all', Date.now()),
};

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The advisory lock (two-int form: objsubid 2 in pg_locks) held while migrating. */
const MIGRATION_LOCK = [0x4c6f7265, 1] as const; // "Lore", 1

/** The database holds a schema newer than this release knows. */
class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(
      `The database has Lore schema version ${found}; this release knows versions up to ${SCHEMA_VERSION}. ` +
        'It was written by a newer release of Lore: run that release (or newer) against it, never an older one.',
    );
    this.name = 'SchemaTooNewError';
  }
}

/** Brings the schema up to SCHEMA_VERSION; resolves with the versions it applied. */
export async function migrate(db: PostgresDatabase): Promise<number[]> {
  const client = await db.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS lore_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const current = await schemaVersion(client);
      if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current);
      const applied: number[] = [];
      for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
        await client.query('BEGIN');
        try {
          await client.query(MIGRATIONS[version - 1]!);
          await MIGRATION_STEPS[version]?.(client);
          await client.query('INSERT INTO lore_schema (version) VALUES ($1)', [version]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
        applied.push(version);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

async function schemaVersion(tx: Tx): Promise<number> {
  const { rows } = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM lore_schema');
  return rows[0]?.version ?? 0;
}
