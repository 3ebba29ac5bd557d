/**
 * The connection pool and the one way this storage talks to PostgreSQL: queries and
 * transactions, with the server's failures turned into the storage's typed errors.
 *
 * - PostgreSQL unreachable, shutting down, out of connections, a statement past its timeout, or
 *   no connection free in the pool within `acquireTimeoutMs`: StorageUnavailableError (503 with
 *   Retry-After). Nothing half-done survives: the transaction is rolled back by the server.
 * - A transaction that lost a race to another one (unique violation on an id both inserted,
 *   serialization failure, deadlock) is run again from the start: the retry sees the other
 *   transaction's committed rows and decides again (an id now stored is unchanged or a conflict).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';
import { StorageUnavailableError } from '../storage';

export interface PostgresPoolOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** Connections per service process (default 10). */
  poolSize?: number;
  /** Longest any one SQL statement may run, ms (default 30 s); past it the request answers 503. */
  statementTimeoutMs?: number;
  /** Longest a request waits for a free connection, ms (default 5 s); past it, 503. */
  acquireTimeoutMs?: number;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const DEFAULT_ACQUIRE_TIMEOUT_MS = 5_000;
/** How often a transaction that lost a race is run again before the request fails. */
const MAX_ATTEMPTS = 5;
/** Prepared texts whose names are kept (they are a few dozen). */
const MAX_PREPARED_NAMES = 1_000;

/** SQLSTATEs of a transaction that lost a race: run it again. */
const RETRYABLE = new Set(['23505', '40001', '40P01']);

/** A connection inside a transaction: what the domain modules write and read with. */
export type Tx = Pick<PoolClient, 'query'>;

/** Thrown inside a transaction to have it rolled back and run again (a race it lost). */
export class RetryTransaction extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RetryTransaction';
  }
}

export class PostgresDatabase {
  readonly pool: pg.Pool;
  /** Each prepared text's name, hashed once: a write or a read would otherwise hash its text again. */
  private readonly preparedNames = new Map<string, string>();

  constructor(readonly options: PostgresPoolOptions) {
    const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
      // A request must never hang on a server that stopped answering: the driver gives up too.
      query_timeout: statementTimeout + 5_000,
      statement_timeout: statementTimeout,
      // An acknowledged write is on the server's disk: never weakened by a server default.
      options: '-c synchronous_commit=on -c timezone=UTC',
      application_name: 'lore-lrs',
      types: { getTypeParser: typeParser },
    });
    // An idle connection the server dropped (restart, network) must not crash the process: the
    // pool discards it and the next request opens a new one.
    this.pool.on('error', () => {});
  }

  async query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows;
    } catch (err) {
      throw storageError(err);
    }
  }

  /**
   * `query`, as a statement each connection parses and plans once and then only runs (a named
   * prepared statement): for the hot reads, whose planning cost the server more than running them
   * (GET /statements' page at 1,000,000 statements: ~2.5 ms of the server's CPU planned each time,
   * ~0.8 ms prepared). Only for a bounded set of texts (values go in parameters): each text stays
   * prepared on each connection until it closes.
   */
  async prepared<R extends QueryResultRow = QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>({ name: this.preparedName(text), text, values })).rows;
    } catch (err) {
      throw storageError(err);
    }
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED) and commits; rolled back on any throw.
   * `beforeCommit` runs just before COMMIT (tests hold writes short of durable there).
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>, beforeCommit?: () => Promise<void>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: PoolClient;
      try {
        client = await this.pool.connect();
      } catch (err) {
        throw storageError(err);
      }
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        if (beforeCommit) await beforeCommit();
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        if (attempt < MAX_ATTEMPTS && isRetryable(err)) continue;
        throw storageError(err);
      } finally {
        client.release(broken);
      }
    }
  }

  /**
   * One SQL statement that writes, in a transaction of its own (no BEGIN/COMMIT round trips: the
   * server commits it, durably, before it answers). Run again when it lost a race, as a transaction
   * is. With `beforeCommit` (tests hold writes short of durable) it runs in a transaction instead.
   * Prepared once per connection, as `prepared` is: its text is one of a few.
   */
  async statement<R extends QueryResultRow = QueryResultRow>(text: string, values: unknown[], beforeCommit?: () => Promise<void>): Promise<R[]> {
    if (beforeCommit) return this.transaction(async (tx) => (await tx.query<R>(text, values)).rows, beforeCommit);
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query<R>({ name: this.preparedName(text), text, values })).rows;
      } catch (err) {
        if (attempt < MAX_ATTEMPTS && isRetryable(err)) continue;
        throw storageError(err);
      }
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /** A prepared statement's name: one per text (the driver refuses one name for two texts). */
  private preparedName(text: string): string {
    let name = this.preparedNames.get(text);
    if (name === undefined) {
      // The texts are a bounded set (see `prepared`); the cap only guards against a caller that is not.
      if (this.preparedNames.size >= MAX_PREPARED_NAMES) this.preparedNames.clear();
      name = `lore_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;
      this.preparedNames.set(text, name);
    }
    return name;
  }
}

const INT8_OID = 20;

/**
 * bigint columns (seqs, times in ms, counts) as numbers: every value this storage keeps in one is
 * below 2^53 (seqs count rows, times are ms since 1970).
 */
function typeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8_OID && format !== 'binary') return Number;
  return pg.types.getTypeParser(oid, format as 'text');
}

function isRetryable(err: unknown): boolean {
  if (err instanceof RetryTransaction) return true;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && RETRYABLE.has(code);
}

/** SQLSTATE disk_full: PostgreSQL could not extend a file of a table or an index. */
const DISK_FULL = '53100';

/**
 * The storage's error for a failure of the server or the connection; any other error (a bug, a
 * typed storage error thrown by the caller) is passed on as it is.
 */
function storageError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  if (err instanceof RetryTransaction) return new StorageUnavailableError('the database was too busy to complete the write; try again', { cause: err });
  const code = (err as { code?: unknown }).code;
  const message = err.message;
  if (typeof code === 'string') {
    if (code === DISK_FULL) {
      return new StorageUnavailableError(`the database server's disk is full: ${message}`, {
        cause: err,
        plainMessage: "The database server's disk is full; nothing was stored. Writes resume by themselves once space is freed on it: retry later.",
      });
    }
    // Connection exceptions (08), insufficient resources (53), operator intervention (57: shutdown,
    // statement timeout, cannot connect now), system errors (58).
    if (/^(08|53|57|58)/.test(code)) return new StorageUnavailableError(`the database is unavailable: ${message}`, { cause: err });
    if (code === '40001' || code === '40P01') return new StorageUnavailableError('the database was too busy to complete the write; try again', { cause: err });
    if (/^E[A-Z]+$/.test(code)) return new StorageUnavailableError(`the database cannot be reached: ${message}`, { cause: err });
  }
  if (/timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error/i.test(message)) {
    return new StorageUnavailableError(`the database is unavailable: ${message}`, { cause: err });
  }
  return err;
}
