/**
 * check-data on what a crash in the middle of a changed-pages snapshot leaves: `lore.sqlite` partly
 * written, the complete `lore.sqlite.pages` beside it (snapshot-pages.ts). The next start finishes
 * the snapshot and opens whole, so the check must judge the snapshot as that start will read it,
 * not the half-written file.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDataDir } from '../../src-server/storage/sqljs/check-data';
import { SNAPSHOT_PAGES_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import { makeStatement } from './rows';
import { closedAfterEach, crashCopy, openIn, removeTempDirs, snapshotWritesFail, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const track = closedAfterEach();


describe('check-data after a crash while a snapshot wrote its pages', () => {
  it('checks the snapshot with the pages file written in (as the next start will), finds it whole, and changes nothing', async () => {
    const { fs, control } = snapshotWritesFail(1);
    const storage = await track(openIn(await tempDir(), { fs }));
    const store = await withStore(storage);
    // Statements spread over many pages, then changes to many of them: the changed pages are
    // written in several runs, and only the first reaches lore.sqlite.
    for (let i = 0; i < 20; i++) await storage.insertStatements(store.id, Array.from({ length: 50 }, () => makeStatement()));
    await storage.snapshot();
    for (let i = 0; i < 20; i++) await storage.insertStatements(store.id, Array.from({ length: 50 }, () => makeStatement()));
    await storage.emptyStore(store.id);
    await storage.insertStatements(store.id, [makeStatement()]);
    control.failing = true;
    await expect(storage.snapshot()).rejects.toThrow(/EIO/);
    const crashed = await crashCopy(storage.dataDir);
    const names = await readdir(crashed);
    expect(names).toContain(SNAPSHOT_PAGES_FILE);

    const check = await checkDataDir({ dataDir: crashed });
    expect(check.problems).toEqual([]);
    expect(check.notes.join('\n')).toContain(SNAPSHOT_PAGES_FILE);
    expect(check.statements).toBe(1);
    expect(await readdir(crashed)).toEqual(names);

    // The start the check vouched for: it finishes the snapshot and opens.
    const reopened = await track(openIn(crashed));
    expect((await reopened.stats(store.id)).statements).toBe(1);
  });
});
