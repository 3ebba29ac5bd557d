/**
 * StatementRow.idMadeByLrs: set exactly when the LRS gave the statement its id, because the
 * storages then skip looking for a stored statement with that id and for one voiding it, and the
 * signature is left to be computed.
 * A PUT names the id in its parameter: the body need not carry it, and that id may be stored
 * already, so such a row must not be marked. (What the storages do with the mark: the storage
 * contract, "voiding".)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LiveEventBus } from '../../src-server/admin/live-events';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { recordStatements, type StatementWriteContext } from '../../src-server/lrs/statement-writes';
import type { StatementRow } from '../../src-server/storage/storage';
import { makeApiKey } from '../storage/rows';
import { openIn, removeTempDirs, tempDir, withStore } from '../storage/sqljs-helpers';

afterAll(removeTempDirs);

const statement = (extra: Record<string, unknown> = {}) => ({
  actor: { mbox: 'mailto:learner@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
  object: { id: 'http://example.com/course/1' },
  ...extra,
});

async function writeContext() {
  const dir = await tempDir();
  const storage = await openIn(dir);
  const store = await withStore(storage);
  const key = makeApiKey(store.id);
  await storage.insertApiKey(key);
  const written: StatementRow[] = [];
  const insertStatements = storage.insertStatements.bind(storage);
  storage.insertStatements = (storeId, rows) => {
    written.push(...rows);
    return insertStatements(storeId, rows);
  };
  const ctx: StatementWriteContext = {
    storage,
    store,
    key,
    version: '1.0.3',
    clock: new StoredClock(),
    publicUrl: 'http://127.0.0.1',
    events: new LiveEventBus(storage),
  };
  return { ctx, written, close: () => storage.close() };
}

describe('which statement ids the LRS made', () => {
  it('marks a statement sent without an id, and not one sent with an id or PUT under one', async () => {
    const { ctx, written, close } = await writeContext();
    const given = randomUUID();
    const put = randomUUID();
    expect((await recordStatements(ctx, [statement(), statement({ id: given })])).ok).toBe(true);
    expect((await recordStatements(ctx, statement(), { statementId: put })).ok).toBe(true);
    // A statement whose id the LRS made leaves its signature to be computed (StatementRow.signature).
    expect(written.map((row) => [row.statementId === given || row.statementId === put, row.idMadeByLrs, typeof row.signature])).toEqual([
      [false, true, 'object'],
      [true, undefined, 'string'],
      [true, undefined, 'string'],
    ]);
    await close();
  });

  it('still finds a PUT of other content under a stored id when the body carries no id', async () => {
    const { ctx, close } = await writeContext();
    const id = randomUUID();
    expect((await recordStatements(ctx, statement(), { statementId: id })).ok).toBe(true);
    const again = await recordStatements(ctx, statement({ object: { id: 'http://example.com/other' } }), { statementId: id });
    expect(again.ok ? null : again.failure.status).toBe(409);
    expect((await recordStatements(ctx, statement(), { statementId: id })).ok).toBe(true);
    await close();
  });
});
