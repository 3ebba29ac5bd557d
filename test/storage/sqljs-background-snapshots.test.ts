/**
 * Background snapshots with the service's compactors (a child process per snapshot, or a worker
 * thread inside Electron; compaction.ts):
 * writes are answered while the image is built from the files, and a crash at any point keeps
 * every acknowledged write. The contract suite runs the same path in process for every operation
 * (sqljs-helpers.ts, "background snapshot after nearly every write").
 */
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Compactor } from '../../src-server/storage/sqljs/compaction';
import { processCompactor } from '../../src-server/storage/sqljs/process-compactor';
import { workerCompactor } from '../../src-server/storage/sqljs/worker-compactor';
import { makeStatement } from './rows';
import { crashCopy, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const compactors: Array<[string, () => Compactor]> = [
  ['a child process', () => processCompactor()],
  ['a worker thread', () => workerCompactor()],
];

describe.each(compactors)('background snapshots in %s', (_where, compactor) => {
  it('replaces the snapshot while writes go on, and a crash copy at any point holds every acknowledged write', async () => {
    const logs: string[] = [];
    const options = { snapshotThresholdBytes: 32 * 1024, compactor: compactor(), backgroundSnapshotMinBytes: 0, log: (m: string) => logs.push(m) };
    const dir = await tempDir();
    const storage = await openIn(dir, options);
    const store = await withStore(storage);
    const acknowledged: string[] = [];
    const copies: Array<{ dir: string; count: number }> = [];
    for (let batch = 0; batch < 40; batch++) {
      const rows = Array.from({ length: 10 }, () => makeStatement({ variant: 'x'.repeat(500) }));
      const result = await storage.insertStatements(store.id, rows);
      if (!result.ok) throw new Error('conflict');
      acknowledged.push(...rows.map((row) => row.statementId));
      // Crash copies taken while background snapshots are (likely) under way.
      if (batch % 8 === 7) copies.push({ dir: await crashCopy(dir), count: acknowledged.length });
    }
    await storage.flush();
    expect(logs.filter((line) => line.startsWith('snapshot written in the background')).length).toBeGreaterThan(0);
    expect(logs.filter((line) => line.startsWith('snapshot failed'))).toEqual([]);
    // The covered journal files are gone: one file left (or two for a moment).
    expect((await readdir(dir)).filter((name) => name.startsWith('journal-')).length).toBeLessThanOrEqual(2);
    await storage.close();

    for (const copy of [...copies, { dir, count: acknowledged.length }]) {
      const reopened = await openIn(copy.dir);
      const stats = await reopened.stats(store.id);
      expect(stats.statements).toBe(copy.count);
      for (const id of acknowledged.slice(0, copy.count).filter((_, i) => i % 37 === 0)) {
        expect(await reopened.findStatement(store.id, id)).not.toBeNull();
      }
      await reopened.close();
    }
  }, 60_000);

  it('answers a job it cannot do with the reason, and leaves nothing running', async () => {
    const dir = await tempDir();
    const job = { dataDir: dir, files: [`${dir}/journal-000001.log`], upToSeq: 5, tempPath: `${dir}/lore.sqlite.tmp` };
    await expect(compactor()(job)).rejects.toThrow(/background snapshot failed: the journal files hold records up to 0, not 5/);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('background snapshots', () => {
  it('go on, by export, after a background snapshot fails', async () => {
    const logs: string[] = [];
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('no worker here');
    };
    const dir = await tempDir();
    const storage = await openIn(dir, { snapshotThresholdBytes: 16 * 1024, compactor: failing, backgroundSnapshotMinBytes: 0, log: (m) => logs.push(m) });
    const store = await withStore(storage);
    for (let batch = 0; batch < 10; batch++) {
      await storage.insertStatements(store.id, Array.from({ length: 10 }, () => makeStatement({ variant: 'x'.repeat(500) })));
      await storage.flush();
    }
    expect(calls).toBe(1);
    expect(logs.some((line) => line.startsWith('background snapshot failed (no worker here)'))).toBe(true);
    expect(logs.filter((line) => /^snapshot written: /.test(line)).length).toBeGreaterThan(0);
    expect((await readdir(dir)).filter((name) => name.startsWith('journal-')).length).toBeLessThanOrEqual(2);
    await storage.close();
    const reopened = await openIn(dir);
    expect((await reopened.stats(store.id)).statements).toBe(100);
    await reopened.close();
  });
});
