/** sql.js specifics of the console's storage: which tables a Store's emptying clears, and older data directories. */
import { afterAll, describe, expect, it } from 'vitest';
import { KEPT_STORE_TABLES, STORE_DATA_TABLES } from '../../src-server/storage/sqljs/empty-store';
import type { IngestionQuery } from '../../src-server/storage/storage';
import { makeRejection, makeStatement } from './rows';
import { openIn, removeTempDirs, rewriteSnapshot, schemaDatabase, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const DAY: IngestionQuery = { bucket: 'hour', since: '2024-05-01T00:00:00.000Z', until: '2024-05-02T00:00:00.000Z', top: 10 };

describe('sql.js console storage', () => {
  it('empties every table keyed by store_num, unless it is listed as kept', async () => {
    const sql = await schemaDatabase();
    const keyed = sql
      .all(
        `SELECT m.name FROM sqlite_master AS m WHERE m.type = 'table'
         AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'store_num') ORDER BY m.name`,
      )
      .map(([name]) => name as string);
    expect(keyed.length).toBeGreaterThan(5);
    expect(keyed.filter((table) => !(STORE_DATA_TABLES as readonly string[]).includes(table) && !KEPT_STORE_TABLES.includes(table))).toEqual([]);
    sql.close();
  });

  it('rebuilds the statistics of a data directory written before they were kept', async () => {
    const dir = await tempDir();
    let storage = await openIn(dir);
    const store = await withStore(storage);
    const target = makeStatement({ storedAt: 0 });
    await storage.insertStatements(store.id, [target, makeStatement({ storedAt: 4000, verb: 'http://example.com/verbs/read' })]);
    await storage.insertStatements(store.id, [makeStatement({ voids: target.statementId, storedAt: 4001 })]);
    await storage.insertRejections(store.id, [makeRejection({ receivedAt: 5 })]);
    const query = { ...DAY, storeId: store.id };
    const expected = await storage.ingestionReport(query);
    expect(expected.totals).toEqual({ accepted: 3, voided: 1, rejected: 1 });
    await storage.close();

    // The snapshot as an older release wrote it: without the statistics tables.
    await rewriteSnapshot(dir, 'DROP TABLE ingestion_minutes; DROP TABLE ingestion_top_hours;');

    storage = await openIn(dir);
    expect(await storage.ingestionReport(query)).toEqual(expected);
    await storage.close();
  });
});
