/** A Store's own limits in the embedded storage: journaled with updateStore, kept by snapshots, and a column older data directories gain at open. */
import { afterEach, describe, expect, it } from 'vitest';
import { crashCopy, openIn, removeTempDirs, rewriteSnapshot, tempDir, withStore } from './sqljs-helpers';

afterEach(removeTempDirs);

describe("a Store's limits in sql.js storage", () => {
  it('survive a crash: the journal replays them', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    await storage.updateStore(store.id, { limits: { maxBatch: 5, ratePerSecond: 0 } });
    const copy = await crashCopy(dir);
    await storage.close();
    const reopened = await openIn(copy);
    try {
      expect((await reopened.findStoreById(store.id))?.limits).toEqual({ maxBatch: 5, ratePerSecond: 0 });
      expect((await reopened.listStores())[0]?.limits).toEqual({ maxBatch: 5, ratePerSecond: 0 });
    } finally {
      await reopened.close();
    }
  });

  it('are cleared by an empty set, and other fields of a patch leave them alone', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    await storage.updateStore(store.id, { limits: { maxBatch: 5 } });
    await storage.updateStore(store.id, { name: 'renamed' });
    expect((await storage.findStoreBySlug(store.slug))?.limits).toEqual({ maxBatch: 5 });
    await storage.updateStore(store.id, { limits: {} });
    expect((await storage.findStoreBySlug(store.slug))?.limits).toBeUndefined();
    await storage.close();
  });

  it('open a data directory written before the column existed, and can then be set', async () => {
    const dir = await tempDir();
    const first = await openIn(dir);
    const store = await withStore(first);
    await first.close();
    await rewriteSnapshot(dir, 'ALTER TABLE stores DROP COLUMN limits');
    const storage = await openIn(dir);
    try {
      expect((await storage.findStoreById(store.id))?.limits).toBeUndefined();
      await storage.updateStore(store.id, { limits: { maxBodyBytes: 65536 } });
      expect((await storage.findStoreById(store.id))?.limits).toEqual({ maxBodyBytes: 65536 });
    } finally {
      await storage.close();
    }
  });
});
