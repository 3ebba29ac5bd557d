/**
 * Forgetting a learner and a Store's retention on sql.js (erasure-contract.ts), and what only the
 * embedded backend does: the records replay to the same state after a reopen, and a restore of a
 * backup taken before an erasure applies it again at the next open (the ledger file).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreDataDir } from '../../src-server/storage/sqljs/backup';
import { ERASURE_LEDGER_FILE } from '../../src-server/storage/sqljs/erasure-ledger-file';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { Storage } from '../../src-server/storage/storage';
import { ADA_KEYS, erasureContract, seedLearners, statementRow } from './erasure-contract';
import { at } from './rows';
import { crashCopy, openIn, removeTempDirs, tempDir } from './sqljs-helpers';

const open: SqljsStorage[] = [];
afterEach(async () => {
  for (const storage of open.splice(0)) await storage.close().catch(() => {});
  await removeTempDirs();
});

async function openNew(dir?: string): Promise<SqljsStorage> {
  const storage = await openIn(dir ?? (await tempDir()));
  open.push(storage);
  return storage;
}

describe('erasure and retention on sql.js', () => {
  erasureContract(
    () => openNew(),
    async (storage: Storage) => {
      const dir = (storage as SqljsStorage).dataDir;
      await storage.close();
      return openNew(dir);
    },
  );

  it('replays the erasure from the journal after a reopen without a snapshot', async () => {
    const dir = await tempDir();
    const storage = await openNew(dir);
    const { store, adaIds } = await seedLearners(storage);
    await storage.eraseAgents(store.id, { keys: ADA_KEYS, at: at(100), dryRun: false });
    // A copy of the directory now is what a kill -9 leaves: the journal holds the erasure.
    const replayed = await openNew(await crashCopy(dir));
    for (const id of adaIds) expect(await replayed.findStatement(store.id, id)).toBeNull();
    expect(await replayed.listErasures(store.id)).toHaveLength(1);
    expect((await replayed.stats(store.id)).statements).toBe(3);
  });

  it('applies an erasure again after a restore of a backup taken before it, and keeps the ledger', async () => {
    const dir = await tempDir();
    const storage = await openNew(dir);
    const { store, adaIds, bobIds } = await seedLearners(storage);
    const backup = path.join(await tempDir(), 'before.sqlite');
    await storage.writeBackup(backup);
    const { erasure } = await storage.eraseAgents(store.id, { keys: ADA_KEYS, at: at(100), dryRun: false });
    // Written after the erasure, so a later write is in the backup's future too.
    await storage.insertStatements(store.id, [statementRow({ actor: { mbox: 'mailto:carol@example.com' } }, 200)]);
    expect(await readFile(path.join(dir, ERASURE_LEDGER_FILE), 'utf8')).toContain(erasure!.id);
    await storage.close();
    open.splice(open.indexOf(storage), 1);

    await restoreDataDir({ dataDir: dir, from: backup });
    const restored = await openNew(dir);
    for (const id of adaIds) expect(await restored.findStatement(store.id, id)).toBeNull();
    for (const id of bobIds) expect(await restored.findStatement(store.id, id)).not.toBeNull();
    expect(await restored.lookupNames(store.id, { kind: 'agent', words: ['lovelace'], limit: 5 })).toEqual([]);
    expect(await restored.listErasures(store.id)).toEqual([erasure]);
    // Applied once: reopening again finds it held and does nothing more.
    await restored.close();
    open.splice(open.indexOf(restored), 1);
    const again = await openNew(dir);
    expect(await again.listErasures(store.id)).toEqual([erasure]);
  });
});
