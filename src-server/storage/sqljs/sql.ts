/**
 * A thin layer over a sql.js Database: prepared statements cached by their SQL text (preparing
 * costs more than running a small statement), rows as arrays, and synchronous transactions.
 */
import type { Database, SqlValue, Statement } from 'sql.js';
import { StorageDamagedError } from '../storage';

export type Row = SqlValue[];

/**
 * A long string as a bind parameter that the SQL takes as text: write it `CAST(? AS TEXT)`. sql.js
 * encodes a string parameter to UTF-8 in JavaScript, character by character (12–30 µs for a 1.4 KB
 * statement); Buffer.from encodes natively and sql.js copies the bytes in one call (~3 µs). The
 * column still holds TEXT, so reads, json_extract and the sqlite3 shell see the same value. (Not
 * for a comparison: a BLOB never equals a TEXT.)
 */
export function utf8(text: string): Uint8Array;
export function utf8(text: string | null): Uint8Array | null;
export function utf8(text: string | null): Uint8Array | null {
  return text === null ? null : Buffer.from(text, 'utf8');
}

/** The name of the database's file in sql.js's memory file system (sql.js sets it; its types leave it out). */
export function sqlJsFileName(db: Database): string {
  return (db as Database & { filename: string }).filename;
}

/** SQLite's words for a database file whose bytes are not what it wrote (SQLITE_CORRUPT, SQLITE_NOTADB). */
const DAMAGE = /database disk image is malformed|file is not a database|SQLITE_CORRUPT/i;

export class Sql {
  private readonly cache = new Map<string, Statement>();
  /** A group transaction is open (beginGroup): `transaction` makes savepoints in it. */
  private groupOpen = false;
  /** The first damage SQLite reported while this database was open: the status shows it. */
  damage: string | null = null;

  constructor(readonly db: Database) {}

  run(sql: string, params: SqlValue[] = []): void {
    const stmt = this.prepared(sql);
    try {
      stmt.bind(params);
      stmt.step();
    } catch (err) {
      throw this.named(err);
    } finally {
      stmt.reset();
    }
  }

  /** `run`, answering how many rows the statement inserted, changed or deleted (sqlite3_changes). */
  runCounted(sql: string, params: SqlValue[] = []): number {
    this.run(sql, params);
    return this.db.getRowsModified();
  }

  all(sql: string, params: SqlValue[] = []): Row[] {
    const stmt = this.prepared(sql);
    const rows: Row[] = [];
    try {
      stmt.bind(params);
      while (stmt.step()) rows.push(stmt.get());
    } catch (err) {
      throw this.named(err);
    } finally {
      stmt.reset();
    }
    return rows;
  }

  first(sql: string, params: SqlValue[] = []): Row | undefined {
    const stmt = this.prepared(sql);
    try {
      stmt.bind(params);
      return stmt.step() ? stmt.get() : undefined;
    } catch (err) {
      throw this.named(err);
    } finally {
      stmt.reset();
    }
  }

  /** The whole database as an SQLite file (sql.js export), damage named like any read's. */
  exportImage(): Uint8Array {
    try {
      return this.db.export();
    } catch (err) {
      throw this.named(err);
    }
  }

  /** Damage becomes StorageDamagedError (a 503 that names it, never a 500) and is remembered. */
  private named(err: unknown): unknown {
    if (!(err instanceof Error) || !DAMAGE.test(err.message)) return err;
    this.damage ??= `SQLite reported "${err.message}" at ${new Date().toISOString()}`;
    return new StorageDamagedError(
      `The database is damaged (${err.message}); this request could not be answered. ` +
        'Stop the service, run `npm run check-data`, and restore the newest backup (README, "Recovery").',
      { cause: err },
    );
  }

  /**
   * Runs `fn` in one SQL transaction: all of it or, when it throws, none of it. Inside a group
   * (`beginGroup`) it is a savepoint of the group's transaction: undone alone when it throws.
   */
  transaction<T>(fn: () => T): T {
    const inGroup = this.groupOpen;
    this.run(inGroup ? 'SAVEPOINT lore_write' : 'BEGIN');
    try {
      const result = fn();
      this.run(inGroup ? 'RELEASE lore_write' : 'COMMIT');
      return result;
    } catch (err) {
      if (inGroup) {
        this.run('ROLLBACK TO lore_write');
        this.run('RELEASE lore_write');
      } else {
        this.run('ROLLBACK');
      }
      throw err;
    }
  }

  /**
   * Opens one SQL transaction that later `transaction` calls join as savepoints, until `endGroup`
   * commits it. A COMMIT writes every page the transaction changed to the in-memory file (and
   * the change tracking sees each): writes of several requests in one commit write a page they
   * share once, and pay BEGIN/COMMIT once.
   */
  beginGroup(): void {
    if (this.groupOpen) return;
    this.run('BEGIN');
    this.groupOpen = true;
  }

  /** Commits the group's transaction, if one is open. */
  endGroup(): void {
    if (!this.groupOpen) return;
    this.groupOpen = false;
    try {
      this.run('COMMIT');
    } catch (err) {
      // SQLite may have rolled back already (SQLITE_FULL, SQLITE_NOMEM): then this ROLLBACK fails, harmlessly.
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // No transaction was left open.
      }
      throw err;
    }
  }

  /**
   * Frees every cached statement. sql.js 1.16 keeps prepared statements across `export()`, but
   * older releases freed them there; the storage calls this after an export so either way works.
   */
  resetCache(): void {
    for (const stmt of this.cache.values()) stmt.free();
    this.cache.clear();
  }

  close(): void {
    this.resetCache();
    this.db.close();
  }

  private prepared(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      // Dynamic query shapes are few (one per filter combination); the bound is a safety net.
      if (this.cache.size >= 500) this.resetCache();
      try {
        stmt = this.db.prepare(sql);
      } catch (err) {
        // Preparing reads the schema: damage there shows up here.
        throw this.named(err);
      }
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}
