/**
 * Damage in the middle of a journal: told from a torn tail, never cut, refused at open with
 * nothing changed, and repaired by skipping only the damaged record.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalDamagedError } from '../../src-server/storage/sqljs/load-database';
import { repairDataDir } from '../../src-server/storage/sqljs/journal-repair';
import { journalFileName, surveyJournal } from '../../src-server/storage/sqljs/journal-format';
import type { StoreRecord } from '../../src-server/storage/storage';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { makeStatement } from './rows';
import { closedAfterEach, crashCopy, dataDirFingerprint, journalFiles, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);


async function present(storage: SqljsStorage, store: StoreRecord, ids: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const id of ids) if (await storage.findStatement(store.id, id)) found.push(id);
  return found;
}

describe('damage in the middle of a journal', () => {
  const track = closedAfterEach();

  /** 40 statements written one by one (one record each), then a crash copy of the directory. */
  async function crashedAfterWrites(count = 40) {
    const storage = await track(openIn(await tempDir()));
    const store = await withStore(storage);
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const row = makeStatement();
      await storage.insertStatements(store.id, [row]);
      ids.push(row.statementId);
    }
    const dir = await crashCopy(storage.dataDir);
    const [journal] = await journalFiles(dir);
    return { dir, journal: journal!, store, ids };
  }

  /** Overwrites 8 bytes inside the payload of the record holding statement `index`; returns its offset. */
  async function damageRecordOf(journal: string, ids: string[], index: number): Promise<number> {
    const bytes = await readFile(journal);
    const record = surveyJournal(bytes).records.find((r) => JSON.stringify(r.record.op).includes(ids[index]!))!;
    bytes.fill(0x41, record.offset + 40, record.offset + 48);
    await writeFile(journal, bytes);
    return record.offset;
  }

  it('refuses to open, naming the file, the byte offset, the records that follow and the repair command, and changes nothing', async () => {
    const { dir, journal, ids } = await crashedAfterWrites();
    const offset = await damageRecordOf(journal, ids, 20);
    const before = await dataDirFingerprint(dir, ['lore.lock']);

    const error = await openIn(dir).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(JournalDamagedError);
    const message = (error as Error).message;
    expect(message).toContain(journal);
    expect(message).toContain(`bad record checksum at byte ${offset}`);
    // The Store's record and 20 statements come before; 19 statements after.
    expect(message).toContain('19 whole records follow the damage');
    expect(message).toContain(`npm run repair -- --data-dir ${dir}`);
    expect(await dataDirFingerprint(dir, ['lore.lock'])).toEqual(before);
  });

  it('refuses a cut at the end of an older journal file that a newer file follows', async () => {
    const { dir, journal } = await crashedAfterWrites(10);
    // Split the journal in two files as a rotation leaves them, then cut the older one short.
    const bytes = await readFile(journal);
    const { records } = surveyJournal(bytes);
    const split = records[6]!;
    await writeFile(journal, bytes.subarray(0, split.offset - 3));
    await writeFile(path.join(dir, journalFileName(split.record.j)), bytes.subarray(split.offset));
    const before = await dataDirFingerprint(dir, ['lore.lock']);
    await expect(openIn(dir)).rejects.toThrow(/short record at byte \d+\), and 5 whole records follow the damage/);
    expect(await dataDirFingerprint(dir, ['lore.lock'])).toEqual(before);
  });

  it('repairs by skipping only the damaged record: the copy is kept, the loss is named, every other statement is readable', async () => {
    const { dir, journal, ids, store } = await crashedAfterWrites();
    await damageRecordOf(journal, ids, 20);
    const damagedBytes = await readFile(journal);

    const report = await repairDataDir({ dataDir: dir, now: new Date('2026-11-25T04:12:00.000Z') });
    expect(report.lostRecords).toBe(1);
    expect(report.lost).toHaveLength(1);
    expect(report.lost[0]!.reason).toMatch(/bad record checksum at byte \d+/);
    expect(report.lost[0]!.statementIds).toEqual([ids[20]]);
    expect(report.repaired).toEqual([{ file: journal, copy: `${journal}.damaged-2026-11-25T04-12-00Z` }]);
    expect(await readFile(report.repaired[0]!.copy)).toEqual(damagedBytes);
    expect(report.statements).toBe(39);

    const storage = await track(openIn(dir));
    expect(await present(storage, store, ids)).toEqual(ids.filter((_, i) => i !== 20));
    // Writes go on after the repair and survive the next crash.
    const row = makeStatement();
    await storage.insertStatements(store.id, [row]);
    const again = await track(openIn(await crashCopy(dir)));
    expect(await present(again, store, [row.statementId])).toEqual([row.statementId]);
  });

  it('finds nothing to repair in a whole directory, and changes nothing', async () => {
    const { dir } = await crashedAfterWrites(5);
    const before = await dataDirFingerprint(dir, ['lore.lock']);
    const report = await repairDataDir({ dataDir: dir });
    expect(report).toMatchObject({ repaired: [], lostRecords: 0, statements: 5 });
    expect(await dataDirFingerprint(dir, ['lore.lock'])).toEqual(before);
  });

  it('loses the records that cannot be applied without a lost one, and names them', async () => {
    const storage = await track(openIn(await tempDir()));
    const first = await withStore(storage);
    const kept = makeStatement();
    await storage.insertStatements(first.id, [kept]);
    // A second Store created in a record that will be damaged, then statements written to it.
    const second = await withStore(storage);
    const orphans = [makeStatement(), makeStatement()];
    for (const row of orphans) await storage.insertStatements(second.id, [row]);
    const dir = await crashCopy(storage.dataDir);
    const [journal] = await journalFiles(dir);
    const bytes = await readFile(journal!);
    const storeRecord = surveyJournal(bytes).records.find((r) => r.record.op.t === 'insertStore' && JSON.stringify(r.record.op).includes(second.id))!;
    bytes.fill(0x41, storeRecord.offset + 20, storeRecord.offset + 28);
    await writeFile(journal!, bytes);

    const report = await repairDataDir({ dataDir: dir });
    expect(report.lostRecords).toBe(3);
    expect(report.lost.flatMap((run) => run.statementIds).sort()).toEqual(orphans.map((row) => row.statementId).sort());
    const reopened = await track(openIn(dir));
    expect(await present(reopened, first, [kept.statementId])).toEqual([kept.statementId]);
  });

  it('still cuts a torn tail at open, as a crash during an unacknowledged write leaves it', async () => {
    const { dir, journal, ids, store } = await crashedAfterWrites(5);
    const bytes = await readFile(journal);
    await writeFile(journal, bytes.subarray(0, bytes.length - 10));
    const messages: string[] = [];
    const storage = await track(openIn(dir, { log: (m) => messages.push(m) }));
    expect(await present(storage, store, ids)).toEqual(ids.slice(0, 4));
    expect(messages.join('\n')).toMatch(/torn tail/);
  });
});
