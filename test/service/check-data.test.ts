/**
 * `npm run check-data` on whole and damaged data directories: what it prints, its exit code, and
 * that it changes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGE_BYTES } from '../../src-server/storage/sqljs/file-changes';
import { surveyJournal } from '../../src-server/storage/sqljs/journal-format';
import { makeStatement } from '../storage/rows';
import { runScript } from './scripts';
import { crashCopy, dataDirFingerprint, journalFiles, openIn, removeTempDirs, tempDir, withStore } from '../storage/sqljs-helpers';

afterAll(removeTempDirs);

const checkData = (dataDir: string) => runScript('check-data', ['--data-dir', dataDir]);


/** A closed data directory (snapshot and sums) with more statements in its journal since (a crash copy). */
async function dataDir(): Promise<string> {
  const storage = await openIn(await tempDir());
  const store = await withStore(storage);
  for (let i = 0; i < 20; i++) await storage.insertStatements(store.id, Array.from({ length: 20 }, () => makeStatement()));
  await storage.snapshot();
  for (let i = 0; i < 10; i++) await storage.insertStatements(store.id, [makeStatement()]);
  const copy = await crashCopy(storage.dataDir);
  await storage.close();
  return copy;
}

describe('npm run check-data', () => {
  it('finds a whole directory whole, exit 0, and changes nothing', async () => {
    const dir = await dataDir();
    const before = await dataDirFingerprint(dir);
    const { code, output } = await checkData(dir);
    expect(output).toContain('400 statements in the snapshot, 10 journal records');
    expect(output).toContain('whole: nothing is damaged.');
    expect(code).toBe(0);
    expect(await dataDirFingerprint(dir)).toEqual(before);
  }, 30_000);

  it('names two damaged pages of the snapshot, exit 1', async () => {
    const dir = await dataDir();
    const file = path.join(dir, 'lore.sqlite');
    const image = readFileSync(file);
    const middle = Math.floor(image.length / PAGE_BYTES / 2);
    image.fill(0x44, middle * PAGE_BYTES, (middle + 2) * PAGE_BYTES);
    writeFileSync(file, image);
    const before = await dataDirFingerprint(dir);
    const { code, output } = await checkData(dir);
    expect(output).toContain(`DAMAGED: lore.sqlite: 2 pages: ${middle} (bytes ${middle * PAGE_BYTES}–`);
    expect(code).toBe(1);
    expect(await dataDirFingerprint(dir)).toEqual(before);
  }, 30_000);

  it('names a damaged journal record with records after it and the repair command, exit 1; a torn tail only as a note, exit 0', async () => {
    const dir = await dataDir();
    const [journal] = await journalFiles(dir);
    const bytes = readFileSync(journal!);
    const records = surveyJournal(bytes).records;
    const torn = bytes.subarray(0, bytes.length - 5);
    writeFileSync(journal!, torn);
    const tornCheck = await checkData(dir);
    expect(tornCheck.output).toMatch(/note: journal-\d+\.log: a torn tail of \d+ bytes/);
    expect(tornCheck.code).toBe(0);

    const damaged = Buffer.from(bytes);
    damaged.fill(0x41, records[4]!.offset + 30, records[4]!.offset + 38);
    writeFileSync(journal!, damaged);
    const { code, output } = await checkData(dir);
    expect(output).toMatch(new RegExp(`DAMAGED: journal-\\d+\\.log: bad record checksum at byte ${records[4]!.offset}, and whole records follow it`));
    expect(output).toContain(`npm run repair -- --data-dir ${dir}`);
    expect(code).toBe(1);
  }, 30_000);

  it('will not check a directory a service is writing, exit 2', async () => {
    const storage = await openIn(await tempDir());
    try {
      const { code, output } = await checkData(storage.dataDir);
      expect(output).toMatch(/in use by process .*Stop the service to check its data/);
      expect(code).toBe(2);
    } finally {
      await storage.close();
    }
  }, 30_000);
});
