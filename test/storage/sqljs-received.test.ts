/** sql.js specifics of statements as received (sqljs/received.ts): the columns, and older data directories. */
import { afterAll, describe, expect, it } from 'vitest';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { statementAsReceived } from '../../src-server/xapi/received-statement';
import { makeStatement } from './rows';
import { openIn, receivedColumnsOf, removeTempDirs, rewriteSnapshot, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

/** seq, received and lrs_added of every statement, read from a fresh snapshot. */
async function receivedColumns(storage: SqljsStorage): Promise<unknown[][]> {
  await storage.snapshot();
  return receivedColumnsOf(storage.dataDir);
}

describe('statements as received in sql.js', () => {
  it('keeps the received copy only for rows that carry one, and the added properties as a bit set', async () => {
    const storage = await openIn(await tempDir());
    const store = await withStore(storage);
    const plain = { ...makeStatement(), lrsAdded: ['id' as const, 'stored' as const, 'authority' as const] };
    const copied = { ...makeStatement(), lrsAdded: [], received: { sent: true } };
    await storage.insertStatements(store.id, [plain, copied, makeStatement()]);
    expect(await receivedColumns(storage)).toEqual([
      [null, 0b11001],
      ['{"sent":true}', 0],
      [null, null],
    ]);
    await storage.close();
  });

  it('opens a data directory written before the columns existed, and adds them', async () => {
    const dir = await tempDir();
    const first = await openIn(dir);
    const store = await withStore(first);
    const older = makeStatement({ storedAt: 1 });
    await first.insertStatements(store.id, [older]);
    await first.close();
    await rewriteSnapshot(dir, 'DROP INDEX statements_received; ALTER TABLE statements DROP COLUMN received; ALTER TABLE statements DROP COLUMN lrs_added');

    const reopened = await openIn(dir);
    const newer = { ...makeStatement({ storedAt: 2 }), lrsAdded: ['stored' as const], received: { as: 'sent' } };
    await reopened.insertStatements(store.id, [newer]);
    const records = (await reopened.searchExplorer(store.id, { limit: 10 })).records;
    expect(records.map((r) => statementAsReceived(r.stored!, r.received, r.lrsAdded))).toEqual([{ as: 'sent' }, older.statement]);
    expect(await receivedColumns(reopened)).toEqual([
      [null, null],
      ['{"as":"sent"}', 8],
    ]);
    await reopened.close();
  });
});
