/**
 * A thin layer over a sql.js Database: prepared statements cached by their SQL text (preparing
 * costs more than running a small statement), rows as arrays, and synchronous transactions.
 */
import type { Database, SqlValue, Statement } from 'sql.js';

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

export class Sql {
  private readonly cache = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  run(sql: string, params: SqlValue[] = []): void {
    const stmt = this.prepared(sql);
    try {
      stmt.bind(params);
      stmt.step();
    } finally {
      stmt.reset();
    }
  }

  all(sql: string, params: SqlValue[] = []): Row[] {
    const stmt = this.prepared(sql);
    const rows: Row[] = [];
    try {
      stmt.bind(params);
      while (stmt.step()) rows.push(stmt.get());
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
    } finally {
      stmt.reset();
    }
  }

  /** Runs `fn` in one SQL transaction: all of it or, when it throws, none of it. */
  transaction<T>(fn: () => T): T {
    this.run('BEGIN');
    try {
      const result = fn();
      this.run('COMMIT');
      return result;
    } catch (err) {
      this.run('ROLLBACK');
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
      stmt = this.db.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}
