/**
 * The Storage interface: everything the service keeps, behind one contract that the embedded
 * sql.js implementation satisfies today and a PostgreSQL implementation can satisfy later.
 *
 * Rules every implementation follows (test/storage/storage-contract.ts checks them):
 * - A write resolves only once it is durable: a crash after resolution loses nothing.
 * - A write is atomic: all of it or none of it is visible, before and after a crash.
 * - Reads see every write that has resolved.
 * - Every Store's data is isolated: a read scoped to one Store never returns another's rows.
 * - Statement rows are prepared by the caller (src-server/xapi): storage never interprets xAPI
 *   rules, it only stores values and the index terms it is handed.
 */

export type Environment = 'test' | 'live';

export interface StoreRecord {
  /** Stable internal id (never changes, unlike the slug's display name). */
  id: string;
  slug: string;
  name: string;
  environment: Environment;
  createdAt: string;
  updatedAt: string;
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
  /** Canonical signature of the statement's content; equal signatures mean the same statement. */
  signature: string;
  /** ISO 8601 time the LRS stored it; equal to statement.stored. */
  stored: string;
  /** The API key that sent it. */
  keyId: string;
  verbId: string;
  registration: string | null;
  /** The id of the statement this one voids, when its verb is the voiding verb. */
  voidsStatementId: string | null;
  terms: IndexTerm[];
  /** Raw attachment payloads keyed by sha2, stored with the statement (xAPI §2.4.11). */
  attachments?: Array<{ sha2: string; contentType: string; content: Uint8Array }>;
}

export interface StoredStatement {
  /** Receipt order, unique per database; the cursor for paging. */
  seq: number;
  statementId: string;
  statement: Record<string, unknown>;
  stored: string;
  voided: boolean;
  keyId: string;
}

export type InsertStatementsResult =
  | { ok: true; inserted: string[]; unchanged: string[] }
  /** Nothing was written: `statementId` already exists with a different signature. */
  | { ok: false; conflict: { index: number; statementId: string } };

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
}

export interface StatementPage {
  statements: StoredStatement[];
  /** Set when more rows match beyond this page: pass it back as `afterSeq`. */
  nextAfterSeq: number | null;
}

export type ValidationStatus = 'accepted' | 'voided' | 'rejected';

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

export interface ExplorerQuery {
  status?: ValidationStatus;
  agent?: string;
  activityId?: string;
  verbId?: string;
  /** Inclusive bounds on received/stored time, ISO 8601. */
  since?: string;
  until?: string;
  limit: number;
  /** Newest first; continue below this seq (exclusive). */
  beforeSeq?: number;
}

export interface ExplorerRecord {
  seq: number;
  status: ValidationStatus;
  statementId: string | null;
  receivedAt: string;
  keyId: string;
  /** As stored (accepted/voided) or as received (rejected). */
  statement: unknown;
  error: RejectionRow['error'] | null;
}

export interface ExplorerPage {
  records: ExplorerRecord[];
  nextBeforeSeq: number | null;
}

export interface StorageStats {
  statements: number;
  rejections: number;
  /** Bytes of the database image (what a snapshot writes). */
  databaseBytes: number;
}

export interface Storage {
  // Stores
  insertStore(store: StoreRecord): Promise<void>;
  findStoreBySlug(slug: string): Promise<StoreRecord | null>;
  findStoreById(id: string): Promise<StoreRecord | null>;
  listStores(): Promise<StoreRecord[]>;
  updateStore(id: string, patch: Partial<Pick<StoreRecord, 'name' | 'updatedAt'>>): Promise<void>;
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

  // Rejections and the Statement Explorer
  insertRejections(storeId: string, rows: RejectionRow[]): Promise<void>;
  searchExplorer(storeId: string, query: ExplorerQuery): Promise<ExplorerPage>;

  stats(storeId?: string): Promise<StorageStats>;

  /** Flushes everything and releases the data directory. */
  close(): Promise<void>;
}

/**
 * Storage cannot take writes now (disk full, I/O error, closed). Nothing of the failed write is
 * durable; the HTTP layer answers 503 and the client retries.
 */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}
