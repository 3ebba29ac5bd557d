/**
 * The Storage interface: everything the service keeps, behind one contract that both
 * implementations satisfy: the embedded sql.js database (sqljs/) and PostgreSQL (postgres/).
 *
 * Rules every implementation follows (test/storage/storage-contract.ts checks them):
 * - A write resolves only once it is durable: a crash after resolution loses nothing.
 * - A write is atomic: all of it or none of it is visible, before and after a crash.
 * - Reads see every write that has resolved.
 * - Every Store's data is isolated: a read scoped to one Store never returns another's rows.
 * - Statement rows are prepared by the caller (src-server/xapi): storage never interprets xAPI
 *   rules, it only stores values and the index terms it is handed.
 */
import type { StoreLimits } from '../limits/service-limits';
import type { NamedKind } from './explorer-names';
import type { ForwarderStorage } from './forwarders';
import type { LrsSetProperty } from '../xapi/received-statement';
import type { StoreRetention } from '../limits/store-retention';
import type { ErasureCounts, ErasureOutcome, ErasureRecord, ErasureRequest, RetentionCutoffs, RetentionStepResult } from './erasure';
import type { AuditPage, AuditQuery, AuditRow, StoredAuditEntry } from './audit';

export type Environment = 'test' | 'live';

export interface StoreRecord {
  /** Stable internal id (never changes, unlike the slug's display name). */
  id: string;
  slug: string;
  name: string;
  environment: Environment;
  createdAt: string;
  updatedAt: string;
  /** The limits this Store sets itself (src-server/limits/service-limits.ts); absent or {} when it sets none. */
  limits?: StoreLimits;
  /** How long the Store keeps statements and its logs (limits/store-retention.ts); absent: as the service does. */
  retention?: StoreRetention;
}

export interface ApiKeyRecord {
  /** Public key id; also the user name of Basic auth. Shows the environment: `lore_test_…`. */
  id: string;
  storeId: string;
  name: string;
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  secretHash: string;
  scopes: string[];
  environment: Environment;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** Set on a key that was rotated: the id of the key that replaced it. */
  replacedBy: string | null;
}

export type ApiKeyPatch = Partial<Pick<ApiKeyRecord, 'name' | 'lastUsedAt' | 'expiresAt' | 'revokedAt' | 'replacedBy'>>;

/** An index term of a statement: an agent (by canonical IFI key) or an activity (by id). */
export interface IndexTerm {
  kind: 'agent' | 'activity';
  value: string;
  /**
   * True where the plain `agent` / `activity` filters match (actor or object; object activity).
   * False where only `related_agents` / `related_activities` match (context, authority,
   * sub-statement, ...).
   */
  primary: boolean;
}

/** A statement ready to store, prepared and validated by src-server/xapi. */
export interface StatementRow {
  statementId: string;
  /** The statement as stored, with id, stored, authority, version and timestamp set. */
  statement: Record<string, unknown>;
  /**
   * Canonical signature of the statement's content (xapi/statement-signature.ts); equal signatures
   * mean the same statement. Null when the LRS made the statement's id (idMadeByLrs): nothing can
   * be compared with it as it is written, so the signature is computed from the stored statement
   * only if a later write brings the same id (row-values.ts, signatureOfStored). Stored as ''.
   */
  signature: string | null;
  /** ISO 8601 time the LRS stored it; equal to statement.stored. */
  stored: string;
  /** The API key that sent it. */
  keyId: string;
  verbId: string;
  registration: string | null;
  /** The id of the statement this one voids, when its verb is the voiding verb. */
  voidsStatementId: string | null;
  /**
   * The statement this one targets with a StatementRef object, voiding or not (lower-case id).
   * Queries match a targeting statement through its target: see StatementQuery.
   */
  targetStatementId?: string | null;
  terms: IndexTerm[];
  /** Raw attachment payloads keyed by sha2, stored with the statement (xAPI §2.4.11). */
  attachments?: Array<{ sha2: string; contentType: string; content: Uint8Array }>;
  /**
   * The top-level properties the LRS added to what the client sent: without them, `statement` is
   * the statement as received (unless `received` is set). Absent on rows written before it was
   * recorded: the Explorer then shows the statement as stored.
   */
  lrsAdded?: LrsSetProperty[];
  /**
   * True when the LRS gave the statement its id (the client sent none, so prepareStatement made a
   * random UUID): no stored statement has that id, and none can void it yet, so a storage may
   * skip looking for either. Absent: the id came from the client (or another LRS).
   */
  idMadeByLrs?: true;
  /**
   * The statement exactly as the client sent it (parsed JSON, before validation), only when
   * `statement` without `lrsAdded` is not equal to it (src-server/xapi/received-statement.ts):
   * most statements need no second copy.
   */
  received?: unknown;
  /**
   * What the statement does that xAPI advises against (src-server/xapi/statement-warnings.ts):
   * it is stored, as accepted with warnings. Absent: none.
   */
  warnings?: Array<{ field: string; message: string }>;
  /**
   * The Activity definitions the statement carries, in order (src-server/xapi/activity-definitions.ts).
   * Merged into the Store's definitions in the same atomic write when the row is inserted (not
   * when it is `unchanged`); see ActivityDefinitionRow.
   */
  activityDefinitions?: ActivityDefinitionRow[];
}

export interface StoredStatement {
  /** Receipt order, unique per database; the cursor for paging. */
  seq: number;
  statementId: string;
  /** Parsed from `statementJson` when first read. */
  statement: Record<string, unknown>;
  /** The statement as stored, as JSON text: a read that answers it unchanged sends this as is. */
  statementJson: string;
  /**
   * The same text as UTF-8 bytes, when the storage read it as bytes (the embedded storage's
   * compact rows): an answer writes these rather than encoding statementJson again.
   */
  readonly statementUtf8?: Uint8Array;
  stored: string;
  voided: boolean;
  keyId: string;
}

export type InsertStatementsResult =
  | { ok: true; inserted: string[]; unchanged: string[] }
  /** Nothing was written: `statementId` already exists with a different signature. */
  | { ok: false; conflict: { index: number; statementId: string } };

/**
 * GET /statements filters. Voided statements never match. A statement with a StatementRef object
 * (targetStatementId) also meets agent, verbId, activityId and registration (with the related_*
 * flags) when the statement it targets meets them, recursively, voided or not (xAPI §2.1.3 "Filter
 * Conditions for StatementRefs"); since, until and the seq bounds apply to the statement itself.
 */
export interface StatementQuery {
  agent?: string;
  verbId?: string;
  activityId?: string;
  registration?: string;
  relatedAgents?: boolean;
  relatedActivities?: boolean;
  /** Exclusive lower bound on stored, ISO 8601. */
  since?: string;
  /** Inclusive upper bound on stored, ISO 8601. */
  until?: string;
  ascending?: boolean;
  limit: number;
  /** Continue after this seq (exclusive), in the query's direction. */
  afterSeq?: number;
  /** Only statements received at or before this seq: keeps `more` pages stable while writes arrive. */
  maxSeq?: number;
  /**
   * Only statements sent with this API key (StoredStatement.keyId): the statements/read/mine scope.
   * A statement matching through its StatementRef target must itself be the key's; its target need not.
   */
  keyId?: string;
}

/** Storage.findStatementWithConsistentThrough's answer. */
export interface StatementWithConsistentThrough {
  statement: StoredStatement | null;
  consistentThrough: string;
}

export interface ReadBounds {
  /**
   * A time (ISO 8601) such that every statement whose `stored` is at or before it is visible to
   * reads from now on, and to this read: every such statement's seq is at most `maxSeq`.
   */
  consistentThrough: string;
  /** currentSeq, read after consistentThrough was decided. */
  maxSeq: number;
}

export interface StatementPage {
  statements: StoredStatement[];
  /** Set when more rows match beyond this page: pass it back as `afterSeq`. */
  nextAfterSeq: number | null;
}

// Activities (xAPI Part Three §2.5): each Store keeps one definition per Activity id, merged from
// the statements it accepted.

/**
 * A definition received for an Activity. Every implementation merges it into the stored one the
 * same way: each member replaces the stored member of that name, except that when both are JSON
 * objects (language maps, extensions) they are merged key by key, the received value winning
 * for a key both have. A merge that changes nothing leaves the record (and its `updated`) as it is.
 */
export interface ActivityDefinitionRow {
  activityId: string;
  definition: Record<string, unknown>;
}

export interface ActivityRecord {
  activityId: string;
  /** The merged definition (never empty: an Activity only gets a record from a definition). */
  definition: Record<string, unknown>;
  /** `stored` of the statement whose definition last changed it. */
  updated: string;
}

type ValidationStatus = 'accepted' | 'voided' | 'rejected';

export interface RejectionRow {
  receivedAt: string;
  keyId: string;
  /** The id the client sent, when it sent a usable one. */
  statementId: string | null;
  /** The statement exactly as received (parsed JSON), whatever its shape. */
  payload: unknown;
  error: { code: string; message: string; field?: string; statementIndex?: number };
  /** Best-effort index values read from the payload, so rejected ones can be searched too. */
  agent: string | null;
  verbId: string | null;
  activityId: string | null;
}

/**
 * The Explorer's search. `agent`, `activityId` and `verbId` take one value, or several: statements
 * with any of them (what a name typed in the Explorer matched, lookupNames). An empty list matches
 * nothing. Agents and activities match any index term of a statement (related ones too), and the
 * best-effort columns of a rejection.
 */
export interface ExplorerQuery {
  status?: ValidationStatus;
  /** Canonical agent keys (xapi/agent-key.ts). */
  agent?: string | readonly string[];
  activityId?: string | readonly string[];
  verbId?: string | readonly string[];
  /** Lowercase UUID: one attempt's statements (context.registration). */
  registration?: string;
  /** Only statements accepted with warnings. */
  warned?: boolean;
  /** Inclusive bounds on received/stored time, ISO 8601. */
  since?: string;
  until?: string;
  limit: number;
  /** Newest first; continue below this seq (exclusive). */
  beforeSeq?: number;
}

/**
 * What the Explorer looks names up by (explorer-names.ts): the words typed, matched at the start of
 * the words of a name, in order, the last one as a prefix; or the start of the value itself (an
 * IRI, an agent key) when what is typed is one.
 */
export type NameQuery = {
  kind: NamedKind;
  limit: number;
} & ({ words: readonly string[] } | { valuePrefix: string });

export interface WordsQuery {
  kind: NamedKind;
  words: readonly string[];
  limit: number;
}

/** An agent (by its key), verb or Activity (by IRI) of a Store, with the name it is shown by. */
export interface NamedValue {
  value: string;
  name: string;
}

export interface ExplorerRecord {
  seq: number;
  status: ValidationStatus;
  statementId: string | null;
  receivedAt: string;
  keyId: string;
  /** Rejected: the payload exactly as received. */
  payload?: unknown;
  /** Accepted and voided: the statement as stored. */
  stored?: Record<string, unknown>;
  /**
   * Accepted and voided, where the storage keeps the statement as JSON text: that text (what
   * JSON.stringify(stored) gives), and `received`'s likewise. A page is written out from them
   * without parsing each statement and serialising it again (`stored` is then parsed only if read).
   */
  storedJson?: string;
  /**
   * In place of storedJson, where the storage decoded the statement to UTF-8 bytes: the page writes
   * them as they are, never making a string of them.
   */
  storedUtf8?: Uint8Array;
  receivedJson?: string;
  /**
   * Accepted and voided: StatementRow.received and .lrsAdded as recorded, absent where nothing was
   * (rows written before they were). The statement as sent follows from them and `stored`
   * (xapi/received-statement.ts, statementAsReceived): a rule of xAPI, not the storage's.
   */
  received?: unknown;
  lrsAdded?: LrsSetProperty[];
  /** Accepted and voided: what xAPI advises against that it does (empty: nothing). */
  warnings?: Array<{ field: string; message: string }>;
  error: RejectionRow['error'] | null;
}

export interface ExplorerPage {
  records: ExplorerRecord[];
  nextBeforeSeq: number | null;
}

/**
 * A request refused before any statement of it reached the rejected log (credentials, version
 * header, content type, body, limits, unknown path): what an admin needs to see why content
 * fails. Never a secret: no Authorization header, no credential from a query or form.
 */
export interface RefusalRow {
  /** ISO 8601 time of the first refusal this row stands for. */
  at: string;
  /** Identical refusals (same request line, answer, key, client) coalesced into this row; ≥ 1. */
  count: number;
  /** ISO 8601 time of the last of them (`at` when count is 1). */
  lastAt: string;
  method: string;
  /** The path with its query string, credentials in it removed. */
  path: string;
  status: number;
  code: string;
  /** The error answer's message, in plain words. */
  reason: string;
  /** The API key id the request presented, when it presented one. */
  keyId: string | null;
  /** The client's address. */
  client: string;
  userAgent: string | null;
}

export interface StoredRefusal extends RefusalRow {
  id: number;
  /** The Store whose log holds it; null: the service-wide log. */
  storeId: string | null;
}

export interface RefusalQuery {
  /** One Store's log; null: the service-wide log. */
  storeId: string | null;
  limit: number;
  /** Newest first; continue below this id (exclusive). */
  beforeId?: number;
}

export interface RefusalPage {
  refusals: StoredRefusal[];
  nextBeforeId: number | null;
}

/** The three document resources of xAPI (1.0.3 Part Three §2.2; 2.0.0 §4.1.6.2, .5, .6). */
export type DocumentKind = 'state' | 'activityProfile' | 'agentProfile';

/**
 * Where one document lives. A State is keyed by activity, agent, registration and id; an Activity
 * Profile by activity and id; an Agent Profile by agent and id. Fields a kind does not use are null.
 */
export interface DocumentKey {
  kind: DocumentKind;
  activityId: string | null;
  /** The agent's canonical key (src-server/xapi/agent-key.ts). */
  agent: string | null;
  registration: string | null;
  id: string;
}

/** A set of documents of one activity and/or agent: a key without its id. */
export interface DocumentSet {
  kind: DocumentKind;
  activityId: string | null;
  agent: string | null;
  /** Only this registration; undefined: any registration (and none). */
  registration?: string | null;
  /** Only documents updated after this time (exclusive), ISO 8601. */
  since?: string;
}

/** A document's content as stored; the caller (src-server/xapi) computes the etag. */
export interface DocumentContent {
  contentType: string;
  content: Uint8Array;
  /** SHA-1 of the content, hex, unquoted. */
  etag: string;
  /** ISO 8601 time of the last write. */
  updated: string;
}

export interface StoredDocument extends DocumentContent {
  id: string;
}

// Console statistics (the Ingestion screen): counts kept by every implementation in the same
// atomic write as the statements and rejections they count, so a report never scans statements.

export type IngestionBucket = 'minute' | 'hour' | 'day';

export interface IngestionQuery {
  /** One Store, or every Store when absent. */
  storeId?: string;
  bucket: IngestionBucket;
  /** Inclusive start, ISO 8601, aligned by the caller to a bucket start (UTC). */
  since: string;
  /** Exclusive end, ISO 8601, aligned to a bucket start. */
  until: string;
  /** How many verbs and activities the top lists hold. */
  top: number;
}

/** Language maps (`{"en-US": "completed"}`) by verb id and by activity id. */
export interface DisplayNames {
  verbs: Record<string, Record<string, string>>;
  activities: Record<string, Record<string, string>>;
}

export interface IngestionStats {
  /** Buckets with any traffic, oldest first (empty buckets are left out). */
  series: Array<{ start: string; accepted: number; rejected: number }>;
  /**
   * accepted: statements stored (voiding ones included); voided: voiding statements received
   * (statements voided in the range); rejected: statements refused.
   */
  totals: { accepted: number; voided: number; rejected: number };
  /**
   * Accepted statements by verb id and by object Activity id, most first (ties by id). Counted
   * per whole hour: a range that is not whole hours counts the hours it touches.
   */
  topVerbs: Array<{ id: string; count: number }>;
  topActivities: Array<{ id: string; count: number }>;
}

export interface StorageStats {
  statements: number;
  rejections: number;
  /** Bytes of the database image (what a snapshot writes). */
  databaseBytes: number;
}

/** How full the database is against the most it can hold (sql.js: 3 GiB, see sqljs/capacity.ts). */
export interface StorageCapacity {
  /** Bytes of the pages that hold data. */
  usedBytes: number;
  limitBytes: number;
  /** `warning` from 80% of the limit; `full` from 95%: writes that add data are refused. */
  state: 'ok' | 'warning' | 'full';
}

/**
 * A change another service process sharing the database committed (PostgreSQL): what the console's
 * live views need to show it as they show this process's own writes.
 */
export type StorageChange =
  /** Statements or rejections recorded with seqs `fromSeq`..`toSeq`; `voided`: statement ids they voided. */
  | { kind: 'records'; storeId: string; fromSeq: number; toSeq: number; voided: string[] }
  /** A refused request logged (storeId null: the service-wide log). */
  | { kind: 'refusal'; storeId: string | null; id: number; status: number; code: string; at: string }
  /** Stores or API keys changed: what a process keeps of them is stale. */
  | { kind: 'directory' };

/**
 * A course package imported into a Store for the Test Bench (src-server/bench/): what its manifest
 * says, kept whole. Its files are kept beside it (writePackageFile); it is listed only once whole.
 */
export interface PackageRecord {
  id: string;
  storeId: string;
  kind: 'tincan' | 'cmi5';
  title: string;
  /** The manifest as the Test Bench read it: a plain JSON value, opaque to storage. */
  description: Record<string, unknown>;
  files: number;
  bytes: number;
  createdAt: string;
  /** The outcome a designer marked as expected of it (bench/reference-outcome.ts): opaque here; null: none. */
  reference: Record<string, unknown> | null;
}

/** One launch of a package's unit for a learner: the attempt's registration, and its key. */
export interface LaunchRecord {
  id: string;
  storeId: string;
  packageId: string;
  /** The unit launched: a cmi5 AU's publisher id, or a Tin Can course's Activity id. */
  unitId: string;
  registration: string;
  /** The learner, as an Agent. */
  actor: Record<string, unknown>;
  /** cmi5: this launch's session id. Null for Tin Can. */
  sessionId: string | null;
  /** cmi5: Normal, Browse or Review. Null for Tin Can. */
  launchMode: string | null;
  /** cmi5: the hash of the fetch URL's one-time secret. Null for Tin Can. */
  fetchSecretHash: string | null;
  /** cmi5: when the fetch URL handed out its token; null until then. */
  fetchedAt: string | null;
  /** The API key the attempt writes with (Tin Can: made at launch; cmi5: made at fetch). */
  keyId: string | null;
  createdAt: string;
}

/** One write to a State document in a Test Bench attempt, done or refused (lrs/documents.ts, DocumentWrite). */
export interface DocumentWriteRow {
  registration: string;
  activityId: string;
  /** The agent's canonical key (xapi/agent-key.ts). */
  agent: string;
  stateId: string;
  method: 'PUT' | 'POST' | 'DELETE';
  status: number;
  etagBefore: string | null;
  etagAfter: string | null;
  contentType: string | null;
  /** The content written, as text; null when none was (a refusal, a DELETE) or it is not text. */
  content: string | null;
  keyId: string;
  at: string;
}

export interface StoredDocumentWrite extends DocumentWriteRow {
  /** Order of the writes within the Store. */
  id: number;
}

/**
 * An import of statements into a Store (src-server/admin/import-jobs.ts, docs/import.md): pulled from
 * another LRS, or read from an NDJSON file. Kept whole (a plain JSON value to storage) so that an
 * interrupted pull continues where it was after a restart. `secret` is held only while the pull
 * may still need it: the job drops it when it ends.
 */
export interface ImportJobRecord {
  id: string;
  storeId: string;
  kind: 'lrs' | 'ndjson';
  state: 'running' | 'paused' | 'failed' | 'finished';
  /** lrs: the source's xAPI endpoint, key and secret, and the `since` asked for. */
  endpoint: string | null;
  key: string | null;
  secret: string | null;
  since: string | null;
  /** ndjson: the file's name as uploaded, when it had one. */
  fileName: string | null;
  /** lrs: the `more` link of the next page to read (null: the first page, or none left). */
  more: string | null;
  /** The last statement imported, in the source's order: where a pull resumes when its `more` link no longer works. */
  reached: { stored: string; statementId: string } | null;
  counts: ImportCounts;
  /** The first problems met (invalid statements, conflicts, bad lines), in order. */
  problems: ImportProblem[];
  /** Why the import failed (state `failed`), in plain words. */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

interface ImportCounts {
  /** Statements (or lines) read from the source. */
  read: number;
  imported: number;
  alreadyPresent: number;
  /** Imported statements that void another (the target is voided in this Store too). */
  voided: number;
  invalid: number;
  conflicts: number;
}

export interface ImportProblem {
  kind: 'invalid' | 'conflict';
  /** ndjson: the line, from 1. */
  line?: number;
  statementId?: string;
  message: string;
}

/** Forwarders (forwarders.ts) are part of every storage: their cursors live beside the statements they follow. */
export interface Storage extends ForwarderStorage {
  // Stores
  insertStore(store: StoreRecord): Promise<void>;
  findStoreBySlug(slug: string): Promise<StoreRecord | null>;
  findStoreById(id: string): Promise<StoreRecord | null>;
  listStores(): Promise<StoreRecord[]>;
  updateStore(id: string, patch: Partial<Pick<StoreRecord, 'name' | 'updatedAt' | 'limits' | 'retention'>>): Promise<void>;
  /** Deletes the Store with every key, statement, rejection and document of it. */
  deleteStore(id: string): Promise<void>;

  // API keys
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(storeId: string): Promise<ApiKeyRecord[]>;
  updateApiKey(id: string, patch: ApiKeyPatch): Promise<void>;

  // Statements
  /**
   * Inserts a batch atomically. A row whose statementId exists with the same signature is left
   * as it is (reported in `unchanged`); one with another signature makes the whole batch a
   * conflict and nothing is written. Voiding rows mark their target voided.
   */
  insertStatements(storeId: string, rows: StatementRow[]): Promise<InsertStatementsResult>;
  findStatement(storeId: string, statementId: string): Promise<StoredStatement | null>;
  queryStatements(storeId: string, query: StatementQuery): Promise<StatementPage>;
  /** The highest seq stored so far (0 when empty): the upper bound of a consistent read. */
  currentSeq(): Promise<number>;
  /**
   * What a GET /statements shows, decided before it reads (one round trip on PostgreSQL):
   * `consistentThrough` for X-Experience-API-Consistent-Through, and `maxSeq`, the upper bound of
   * its statements. `floorMs`: no statement this process is still writing has a stored time below
   * it (lrs/stored-clock.ts).
   */
  readBounds(floorMs: number): Promise<ReadBounds>;
  /**
   * GET /statements with statementId or voidedStatementId: the statement (voided or not: the caller
   * decides) and Consistent-Through as readBounds decides it. No seq bound: one statement is shown
   * whatever its seq. One round trip on PostgreSQL, where readBounds and findStatement are two.
   */
  findStatementWithConsistentThrough(storeId: string, statementId: string, floorMs: number): Promise<StatementWithConsistentThrough>;
  /**
   * Where the storage reads this process's floor of stored times in flight (StoredClock.floorMs),
   * for the other processes sharing the database (PostgreSQL). Set once, before serving.
   */
  useStampFloor?(floor: () => number): void;
  /** Raw attachment payloads of the Store by sha2 (those it has; each sha2 once). */
  findAttachments(storeId: string, sha2s: string[]): Promise<Array<{ sha2: string; contentType: string; content: Uint8Array }>>;

  // Activities (definitions are written by insertStatements, from StatementRow.activityDefinitions)
  /** The Store's definition of an Activity; null when no accepted statement defined it. */
  findActivity(storeId: string, activityId: string): Promise<ActivityRecord | null>;

  /**
   * Writes Activity definitions as they are, `updated` included, replacing the Store's definitions
   * of those ids: how a deployment moving to another storage carries them (portable.ts).
   */
  importActivities?(storeId: string, activities: ActivityRecord[]): Promise<void>;

  // Rejections and the Statement Explorer
  insertRejections(storeId: string, rows: RejectionRow[]): Promise<void>;
  searchExplorer(storeId: string, query: ExplorerQuery): Promise<ExplorerPage>;
  /**
   * The Store's agents, verbs or Activities whose name (explorer-names.ts) matches, up to `limit`:
   * those whose name starts with the words first, then in the order of their words. Names are kept
   * from accepted statements (agents of the actor and an Agent/Group object, the verb's display:
   * the newest statement's) and from the Activity definitions the Store keeps.
   */
  lookupNames(storeId: string, query: NameQuery): Promise<NamedValue[]>;
  /**
   * The values (agent keys, IRIs) whose names match the words as lookupNames matches them, in no
   * order, up to `limit`: what a search by those words stands for, without names to show.
   */
  matchNames(storeId: string, query: WordsQuery): Promise<string[]>;

  // Refused requests (a log per Store, and one for the service; bounded like the rejected log)
  /**
   * Appends refusals to their logs (storeId null: the service-wide log) and resolves with them as
   * stored; rows of a Store that no longer exists are dropped.
   */
  insertRefusals(rows: Array<RefusalRow & { storeId: string | null }>): Promise<StoredRefusal[]>;
  listRefusals(query: RefusalQuery): Promise<RefusalPage>;

  // The audit log of admin actions (audit.ts; admin/audit-log.ts writes it)
  insertAuditEntry(row: AuditRow): Promise<StoredAuditEntry>;
  /** Newest first. */
  listAuditEntries(query: AuditQuery): Promise<AuditPage>;
  /** Deletes the entries older than `beforeMs` (epoch ms), in small steps; resolves how many. */
  pruneAuditEntries(beforeMs: number): Promise<number>;

  // Documents (State, Activity Profile, Agent Profile)
  findDocument(storeId: string, key: DocumentKey): Promise<StoredDocument | null>;
  /** Ids of the documents in the set, in id order. */
  listDocumentIds(storeId: string, set: DocumentSet): Promise<string[]>;
  /**
   * Writes the document if the current one is still the one the caller decided on: `ifCurrent`
   * is its etag, or null when the caller saw none. Resolves false, writing nothing, otherwise.
   */
  upsertDocument(storeId: string, key: DocumentKey, document: DocumentContent, ifCurrent: string | null): Promise<boolean>;
  /** Deletes one document; with `ifCurrent`, only if its etag is that. False when nothing was deleted. */
  deleteDocument(storeId: string, key: DocumentKey, ifCurrent?: string): Promise<boolean>;
  /** Deletes every document of the set (`since` is ignored); resolves how many. */
  deleteDocuments(storeId: string, set: DocumentSet): Promise<number>;

  // Test Bench (src-server/bench/): packages, their files, and launches. Emptying a Store keeps
  // its packages and removes its launches; deleting it removes both, files included.
  /** Keeps one file of a package not yet inserted (a package is listed only once whole). */
  writePackageFile(storeId: string, packageId: string, path: string, content: Uint8Array): Promise<void>;
  /** A file of a package, or null. `path` is relative and clean (bench/package-archive.ts). */
  readPackageFile(storeId: string, packageId: string, path: string): Promise<Uint8Array | null>;
  /** Removes the files of a package whose import failed before its record was inserted. */
  discardPackageFiles(storeId: string, packageId: string): Promise<void>;
  insertPackage(record: PackageRecord): Promise<void>;
  listPackages(storeId: string): Promise<PackageRecord[]>;
  findPackage(storeId: string, id: string): Promise<PackageRecord | null>;
  /** Deletes the package with its files and launches. False when there was none. */
  deletePackage(storeId: string, id: string): Promise<boolean>;
  /** Sets (or, with null, clears) a package's reference outcome. False when there is no such package. */
  setPackageReference(storeId: string, id: string, reference: Record<string, unknown> | null): Promise<boolean>;
  insertLaunch(record: LaunchRecord): Promise<void>;
  findLaunch(storeId: string, id: string): Promise<LaunchRecord | null>;
  /** A Store's launches, oldest first; only those of one registration when it is named. */
  listLaunches(storeId: string, query: { registration?: string }): Promise<LaunchRecord[]>;
  /**
   * Marks a cmi5 launch's fetch URL used, with the key it handed out: true only for the first
   * call of all processes sharing the storage; false when it was used already.
   */
  redeemLaunchFetch(storeId: string, id: string, at: string, keyId: string): Promise<boolean>;
  /** Keeps one State write of an attempt (emptying the Store removes them). */
  insertDocumentWrite(storeId: string, row: DocumentWriteRow): Promise<void>;
  /** An attempt's State writes, oldest first. */
  listDocumentWrites(storeId: string, registration: string): Promise<StoredDocumentWrite[]>;

  // Forgetting a learner and a Store's retention (erasure.ts, docs/erasure-and-retention.md)
  /**
   * Removes (or with `dryRun` counts) everything of the Store that names the agents, in one atomic
   * write with its ledger entry. StorageNotFoundError for an unknown Store.
   */
  eraseAgents(storeId: string, request: ErasureRequest): Promise<ErasureOutcome>;
  /** The erasure ledger, oldest first: one Store's entries (deleted Stores' too, by id), or all. */
  listErasures(storeId?: string): Promise<ErasureRecord[]>;
  /**
   * Applies again a ledger entry the storage does not hold (data restored from before it): erases
   * the Store's agents whose salted hash the entry holds and keeps the entry as recorded. Null when
   * the ledger holds it already, or its Store is not there.
   */
  reapplyErasure(entry: ErasureRecord): Promise<ErasureCounts | null>;
  /**
   * Keeps a ledger entry exactly as recorded, erasing nothing: a deployment moved from another
   * backend (storage/migrate/), whose data the erasure already left out. False when the ledger holds it.
   */
  keepErasureRecord(entry: ErasureRecord): Promise<boolean>;
  /** One step of the Store's retention: at most RETENTION_STEP_ROWS rows of each kind older than its cutoff. */
  retentionStep(storeId: string, cutoffs: RetentionCutoffs): Promise<RetentionStepResult>;
  // Imports of statements (admin/import-jobs.ts): the jobs, kept so that a pull resumes after a restart
  /** Inserts the job, or replaces the one with its id. */
  putImportJob(job: ImportJobRecord): Promise<void>;
  findImportJob(storeId: string, id: string): Promise<ImportJobRecord | null>;
  /** A Store's jobs, newest first; or, with `unfinished`, every Store's jobs still running or paused, oldest first. */
  listImportJobs(query: { storeId: string } | { unfinished: true }): Promise<ImportJobRecord[]>;
  /**
   * Takes (or renews) the right to run the job for `leaseMs` as `owner`: true when no other owner
   * holds it unexpired. Several processes on one database run each job once (PostgreSQL); the
   * embedded database has one process, which always may. `leaseMs` 0 gives it up.
   */
  claimImportJob(id: string, owner: string, leaseMs: number): Promise<boolean>;

  // Console: statistics and maintenance (the Ingestion and Stores screens of the admin console)
  /**
   * Deletes every row the Store owns — statements, rejections, attachments, documents, activity
   * definitions, statistics — but the Store itself and its API keys.
   */
  emptyStore(storeId: string): Promise<void>;
  ingestionReport(query: IngestionQuery): Promise<IngestionStats>;
  /**
   * What people call verbs and activities: a verb's `display` (from the newest statement with it)
   * and an Activity's definition `name` (the one the Store keeps), language maps by id; ids with
   * none are left out. One Store, or the first Store that knows each when none is named.
   */
  displayNames(query: { storeId?: string; verbIds: string[]; activityIds: string[] }): Promise<DisplayNames>;

  stats(storeId?: string): Promise<StorageStats>;

  // Safeguards. Optional: a database server has its own size limits and backup tools.
  /** How full the database is. */
  capacity?(): StorageCapacity;
  /**
   * Writes a checked backup file at `file` (written under a temporary name, checked, renamed)
   * without holding writers, from a consistent point: every write that resolved before the call
   * is in it. Resolves with what it holds. The scheduled backups use it, and the download
   * (`handedOut`: a file the service does not keep, so the journal it holds is not released for it).
   */
  writeBackup?(file: string, options?: { handedOut?: boolean }): Promise<BackupFileSummary>;
  /**
   * Changes other service processes commit to the same database, as they commit; returns the
   * unsubscribe function. Absent where no other process can write (the embedded database).
   */
  watchChanges?(listener: (change: StorageChange) => void): () => void;
  /**
   * How many service processes share this database, this one included (a per-process limit meant
   * for the whole deployment divides by it). Absent: this process alone.
   */
  processCount?(): number;
  /**
   * The admin token's hash, kept in the database so that every process sharing it checks the same
   * token (PostgreSQL; the embedded database keeps it in its data directory instead). Null: none yet.
   */
  adminTokenHash?(): Promise<string | null>;
  /**
   * Keeps `hash` as the admin token's: always with `replace`, otherwise only when there is none
   * yet. Resolves with the hash in force afterwards (another process's, if it was first).
   */
  keepAdminTokenHash?(hash: string, replace: boolean): Promise<string>;
  /** Damage the database found in itself while running (StorageDamagedError's message), or null. */
  damage?(): string | null;

  /**
   * Resolves once every write applied so far is durable. An answer decided by reading (a delete of
   * nothing, a no-op) awaits it, so that it never rests on a write a crash could still undo.
   */
  sync(): Promise<void>;

  /** Flushes everything and releases the data directory. */
  close(): Promise<void>;
}

/**
 * Storage cannot take writes now (disk full, I/O error, closed). Nothing of the failed write is
 * durable; the HTTP layer answers 503 and the client retries.
 */
export class StorageUnavailableError extends Error {
  /**
   * What the client is told, when the storage can say it plainly (a full disk on the database
   * server); otherwise the HTTP layer words it from the message and the cause.
   */
  readonly plainMessage: string | undefined;

  constructor(message: string, options?: { cause?: unknown; plainMessage?: string }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
    this.plainMessage = options?.plainMessage;
  }
}

/**
 * The database found damage in itself while answering (SQLite's "database disk image is
 * malformed"): that request cannot be answered, and no retry will help until the data is
 * repaired or restored. The HTTP layer answers 503 `storage_damaged`; the status names it.
 */
export class StorageDamagedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageDamagedError';
  }
}

/**
 * The database is at its capacity (StorageCapacity `full`): a write that adds data (statements,
 * rejections, documents) is refused until data is deleted or the deployment moves to a larger
 * database. Nothing of the write is stored; the HTTP layer answers 507.
 */
export class StorageFullError extends Error {
  constructor(
    message: string,
    readonly capacity: StorageCapacity,
  ) {
    super(message);
    this.name = 'StorageFullError';
  }
}

/** What a backup file holds, as its check read it. */
export interface BackupFileSummary {
  bytes: number;
  /** The journal record it holds up to. */
  journalSeq: number;
  stores: number;
  statements: number;
  rejections: number;
}
