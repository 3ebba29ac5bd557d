/**
 * `npm run check-data`: verifies a data directory without changing it — the snapshot against its
 * page checksums (snapshot-sums.ts) and with PRAGMA quick_check, every journal record (length,
 * checksum, JSON) and the order of their seqs — and says what it found in plain words. Holds the
 * directory's lock while it reads, so no service writes meanwhile.
 */
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SNAPSHOT_FILE, SNAPSHOT_PAGES_FILE, SNAPSHOT_SUMS_FILE } from './data-dir-files';
import { PAGE_BYTES } from './file-changes';
import { readWholeFile } from './fs';
import { isJournalFileName, surveyJournal } from './journal-format';
import { loadSqlJs } from './load-database';
import { lockDataDir } from './lock';
import { StorageDamagedError } from '../storage';
import { readMeta } from './schema';
import { decodeSnapshotPages } from './snapshot-pages';
import { PageSums, describePages } from './snapshot-sums';
import { Sql } from './sql';

export interface DataCheck {
  /** Damage: what makes the directory not whole. */
  problems: string[];
  /** What is worth knowing but harmless (a torn tail, checksums an older version did not keep). */
  notes: string[];
  statements: number | null;
  journalRecords: number;
}

export async function checkDataDir(options: { dataDir: string; wasmPath?: string }): Promise<DataCheck> {
  const dataDir = path.resolve(options.dataDir);
  const lock = await lockDataDir(dataDir, () => {});
  try {
    const check: DataCheck = { problems: [], notes: [], statements: null, journalRecords: 0 };
    const names = (await fsp.readdir(dataDir)).sort();
    if (names.includes(SNAPSHOT_PAGES_FILE)) check.notes.push(`${SNAPSHOT_PAGES_FILE}: a snapshot a crash interrupted; the next start writes its pages into ${SNAPSHOT_FILE} first`);
    const pending = names.includes(SNAPSHOT_PAGES_FILE) ? await readPendingPages(dataDir, check) : null;
    const snapshotSeq = names.includes(SNAPSHOT_FILE) ? await checkSnapshot(dataDir, options.wasmPath, check, pending) : 0;
    await checkJournals(dataDir, names.filter(isJournalFileName), snapshotSeq, check);
    return check;
  } finally {
    await lock.release();
  }
}

/** The pages file of an interrupted snapshot, decoded; null (and a problem) when it is damaged. */
async function readPendingPages(dataDir: string, check: DataCheck): Promise<ReturnType<typeof decodeSnapshotPages> | null> {
  try {
    return decodeSnapshotPages(await readWholeFile(path.join(dataDir, SNAPSHOT_PAGES_FILE)));
  } catch (err) {
    check.problems.push(err instanceof Error ? err.message : String(err));
    return null;
  }
}

/**
 * lore.sqlite as the next start reads it: with the pages of an interrupted snapshot written in
 * (the file itself may be half written; the start writes them first). In memory only.
 */
async function snapshotAsOpened(file: string, pending: ReturnType<typeof decodeSnapshotPages> | null): Promise<Uint8Array> {
  // readWholeFile: a snapshot may pass 2 GiB, where fs.readFile stops.
  const onDisk = await readWholeFile(file);
  if (!pending) return onDisk;
  const image = new Uint8Array(pending.fileBytes);
  image.set(onDisk.subarray(0, Math.min(onDisk.length, image.length)));
  const page = new Uint8Array(PAGE_BYTES);
  for (const [i, number] of pending.pages.entries()) {
    pending.copy(i, i + 1, page);
    const at = number * PAGE_BYTES;
    image.set(page.subarray(0, Math.min(PAGE_BYTES, image.length - at)), at);
  }
  return image;
}

/** Checks lore.sqlite; returns the journal seq it holds (null when it cannot be read). */
async function checkSnapshot(
  dataDir: string,
  wasmPath: string | undefined,
  check: DataCheck,
  pending: ReturnType<typeof decodeSnapshotPages> | null,
): Promise<number | null> {
  const file = path.join(dataDir, SNAPSHOT_FILE);
  const image = await snapshotAsOpened(file, pending);
  const actual = PageSums.ofImage(image, 0);
  const SQL = await loadSqlJs(wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm'));
  let sql: Sql | null = null;
  let journalSeq: number | null = null;
  try {
    sql = new Sql(new SQL.Database(image));
    journalSeq = readMeta(sql).journalSeq;
    const quick = sql.all('PRAGMA quick_check').map(([line]) => String(line));
    if (quick.join() !== 'ok') check.problems.push(`${SNAPSHOT_FILE}: PRAGMA quick_check finds ${quick.slice(0, 5).join('; ')}`);
    else check.statements = sql.first('SELECT count(*) FROM statements')![0] as number;
  } catch (err) {
    // SQLite's own words: the storage's wording of damage speaks to an HTTP client.
    const reason = err instanceof StorageDamagedError && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
    check.problems.push(`${SNAPSHOT_FILE} cannot be read as a Lore database: ${reason}`);
  } finally {
    sql?.close();
  }
  const sumsBytes = await fsp.readFile(path.join(dataDir, SNAPSHOT_SUMS_FILE)).catch(() => null);
  const sums = sumsBytes && PageSums.decode(sumsBytes);
  if (sums === null) check.notes.push(`${SNAPSHOT_FILE} has no page checksums (${SNAPSHOT_SUMS_FILE}): written by an older version; the next start writes them`);
  else if (typeof sums === 'string') check.problems.push(`${SNAPSHOT_SUMS_FILE} cannot be read: ${sums}`);
  // Sums of another seq describe an earlier snapshot; when the seq cannot be read, they are still the best account of which pages differ.
  else if (journalSeq !== null && sums.journalSeq !== journalSeq) {
    check.notes.push(`${SNAPSHOT_SUMS_FILE} describes an earlier snapshot (a crash between a snapshot and its checksums); the next start checks ${SNAPSHOT_FILE} and rewrites them`);
  } else {
    const mismatch = sums.mismatches(actual);
    if (mismatch.pages.length > 0) check.problems.push(`${SNAPSHOT_FILE}: ${describePages(mismatch.pages)}`);
    if (mismatch.sizeDiffers) check.problems.push(`${SNAPSHOT_FILE} holds ${actual.fileBytes} bytes where ${SNAPSHOT_SUMS_FILE} says ${sums.fileBytes}`);
  }
  return journalSeq;
}

/**
 * Every record of every journal file, and the seqs in order from the snapshot's on (from the first
 * record when the snapshot's seq is unknown: its damage is reported already).
 */
async function checkJournals(dataDir: string, names: string[], snapshotSeq: number | null, check: DataCheck): Promise<void> {
  let lastSeq: number | null = snapshotSeq;
  let skipping = true;
  for (const [i, name] of names.entries()) {
    const survey = surveyJournal(await fsp.readFile(path.join(dataDir, name)));
    check.journalRecords += survey.records.length;
    for (const [d, span] of survey.damage.entries()) {
      const last = d === survey.damage.length - 1 && i === names.length - 1 && span.seqAfter === null;
      if (last) {
        check.notes.push(`${name}: a torn tail of ${span.end - span.offset} bytes at byte ${span.offset} (a write a crash cut short, never acknowledged); the next start cuts it`);
      } else {
        const follow = span.seqAfter === null ? 'newer files follow it' : `whole records follow it (from seq ${span.seqAfter})`;
        check.problems.push(`${name}: ${span.reason} at byte ${span.offset}, and ${follow}; run \`npm run repair -- --data-dir ${dataDir}\``);
      }
    }
    for (const { record } of survey.records) {
      if (skipping && record.j <= (snapshotSeq ?? 0)) continue;
      skipping = false;
      lastSeq ??= record.j - 1;
      if (record.j !== lastSeq + 1 && record.j > lastSeq) check.problems.push(`${name}: records ${lastSeq + 1} to ${record.j - 1} are missing`);
      if (record.j > lastSeq) lastSeq = record.op.t === 'lostRecords' ? record.op.through : record.j;
    }
  }
}
