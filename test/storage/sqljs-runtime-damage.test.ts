/**
 * Damage SQLite finds while the service runs: a StorageDamagedError (503 storage_damaged, never a
 * 500) that the status names.
 */
import { describe, expect, it } from 'vitest';
import { Sql } from '../../src-server/storage/sqljs/sql';
import { StorageDamagedError } from '../../src-server/storage/storage';
import { buildTestApp } from '../http/test-app';
import { loadSqlJs } from './sqljs-helpers';

/** A real database with pages overwritten in the middle of a table, opened: what a bad sector gives. */
async function damagedSql(): Promise<Sql> {
  const SQL = await loadSqlJs();
  const whole = new SQL.Database();
  whole.exec('CREATE TABLE t (n INTEGER PRIMARY KEY, pad TEXT)');
  whole.exec(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3000) INSERT INTO t SELECT n, printf('%.200c', 'x') FROM c`);
  const bytes = whole.export();
  whole.close();
  bytes.fill(0xff, 4096 * 20, 4096 * 22);
  return new Sql(new SQL.Database(bytes));
}

describe('damage found while running', () => {
  it('becomes StorageDamagedError, and the database remembers it', async () => {
    const sql = await damagedSql();
    try {
      expect(sql.damage).toBeNull();
      expect(() => sql.all('SELECT sum(length(pad)) FROM t')).toThrow(StorageDamagedError);
      expect(() => sql.all('SELECT sum(length(pad)) FROM t')).toThrow(/The database is damaged \(database disk image is malformed\)/);
      expect(sql.damage).toMatch(/^SQLite reported "database disk image is malformed" at /);
      // A query that does not touch the damaged pages still answers.
      expect(sql.first('SELECT 1')).toEqual([1]);
    } finally {
      sql.close();
    }
  });

  it('is answered 503 storage_damaged with the damage named, and the status shows it', async () => {
    const sql = await damagedSql();
    let damage: StorageDamagedError | undefined;
    try {
      sql.all('SELECT sum(length(pad)) FROM t');
    } catch (err) {
      damage = err as StorageDamagedError;
    }
    const t = await buildTestApp();
    try {
      await t.createStore('demo');
      const key = await t.createKey('demo');
      // The storage answers with the error the damaged database raised, as a damaged page of its own would.
      t.storage.queryStatements = () => Promise.reject(damage!);
      t.storage.damage = () => sql.damage;
      const response = await t.xapi(key, { method: 'GET', url: '/demo/xAPI/statements' });
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toMatchObject({ code: 'storage_damaged', message: expect.stringMatching(/damaged.*npm run check-data/) });
      const status = await t.admin({ method: 'GET', url: '/admin/api/status' });
      expect(status.json().damage).toMatch(/database disk image is malformed/);
    } finally {
      await t.close();
      sql.close();
    }
  });
});
