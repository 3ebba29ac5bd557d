/**
 * Damage in the snapshot is found when it is read: a checksum per page, kept beside it, checked
 * at open; stale or missing checksums are told from damage.
 */
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_FILE, SNAPSHOT_SUMS_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import { PAGE_BYTES, pagesInMemory } from '../../src-server/storage/sqljs/file-changes';
import { nodeStorageFs, readWholeFile } from '../../src-server/storage/sqljs/fs';
import { writeSnapshotPages } from '../../src-server/storage/sqljs/snapshot-pages';
import { PageSummer, PageSums, SnapshotDamagedError } from '../../src-server/storage/sqljs/snapshot-sums';
import { makeStatement } from './rows';
import { closedAfterEach, crashCopy, dataDirFingerprint, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);


describe('page checksums of the snapshot', () => {
  const track = closedAfterEach();

  /** A data directory of `count` statements, closed (so its snapshot and sums are written). */
  async function closedWith(count: number) {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const ids: string[] = [];
    for (let i = 0; i < count; i += 50) {
      const rows = Array.from({ length: 50 }, () => makeStatement());
      await storage.insertStatements(store.id, rows);
      ids.push(...rows.map((row) => row.statementId));
    }
    await storage.close();
    return { dir, store, ids };
  }

  it('are written with the snapshot and match it', async () => {
    const { dir } = await closedWith(500);
    const image = await readFile(path.join(dir, SNAPSHOT_FILE));
    const sums = PageSums.decode(await readFile(path.join(dir, SNAPSHOT_SUMS_FILE)));
    expect(sums).toBeInstanceOf(PageSums);
    expect((sums as PageSums).mismatches(PageSums.ofImage(image, 0))).toEqual({ pages: [], sizeDiffers: false });
  });

  it('refuse to open a snapshot with two pages overwritten in the middle, naming the file and the pages, and change nothing', async () => {
    const { dir } = await closedWith(2000);
    const file = path.join(dir, SNAPSHOT_FILE);
    const image = await readFile(file);
    const middle = Math.floor(image.length / PAGE_BYTES / 2);
    image.fill(0x33, middle * PAGE_BYTES, (middle + 2) * PAGE_BYTES);
    await writeFile(file, image);
    const before = await dataDirFingerprint(dir, ['lore.lock']);

    const error = await openIn(dir).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(SnapshotDamagedError);
    const message = (error as Error).message;
    expect(message).toContain(`${file} is damaged: 2 pages: ${middle} (bytes ${middle * PAGE_BYTES}–`);
    expect(message).toContain(`npm run restore -- --data-dir ${dir} --from <backup> --replay-journal`);
    expect(await dataDirFingerprint(dir, ['lore.lock'])).toEqual(before);
  });

  it('open a data directory of an older version (no checksums) after a quick_check, and write them', async () => {
    const { dir, store, ids } = await closedWith(100);
    await rm(path.join(dir, SNAPSHOT_SUMS_FILE));
    const messages: string[] = [];
    const storage = await track(openIn(dir, { log: (m) => messages.push(m) }));
    expect(messages.join('\n')).toContain('lore.sqlite has no page checksums yet: PRAGMA quick_check found it whole; writing them');
    expect(await storage.findStatement(store.id, ids[0]!)).not.toBeNull();
    expect(PageSums.decode(await readFile(path.join(dir, SNAPSHOT_SUMS_FILE)))).toBeInstanceOf(PageSums);
  });

  it("take the checksums of an earlier snapshot (a crash between a snapshot and its checksums) for stale, not damage", async () => {
    const { dir, store } = await closedWith(100);
    const earlier = path.join(await tempDir(), 'earlier.sums');
    await copyFile(path.join(dir, SNAPSHOT_SUMS_FILE), earlier);
    const storage = await openIn(dir);
    await storage.insertStatements(store.id, [makeStatement()]);
    await storage.close();
    await copyFile(earlier, path.join(dir, SNAPSHOT_SUMS_FILE));

    const messages: string[] = [];
    await track(openIn(dir, { log: (m) => messages.push(m) }));
    expect(messages.join('\n')).toContain('has the page checksums of an earlier snapshot: PRAGMA quick_check found it whole');
  });

  it('stay right through snapshots of changed pages and a crash', async () => {
    const storage = await track(openIn(await tempDir(), { snapshotThresholdBytes: 1 }));
    const store = await withStore(storage);
    for (let i = 0; i < 30; i++) await storage.insertStatements(store.id, [makeStatement(), makeStatement()]);
    await storage.flush();
    const copy = await crashCopy(storage.dataDir);
    const sums = PageSums.decode(await readFile(path.join(copy, SNAPSHOT_SUMS_FILE))) as PageSums;
    expect(sums.mismatches(PageSums.ofImage(await readFile(path.join(copy, SNAPSHOT_FILE)), 0))).toEqual({ pages: [], sizeDiffers: false });
    const messages: string[] = [];
    await track(openIn(copy, { log: (m) => messages.push(m) }));
    expect(messages.join('\n')).not.toMatch(/checksums/);
  });
});

describe('page sums after changed pages', () => {
  it('take a page the file grew by but nobody wrote for zeros, as the lock-byte page at 1 GiB is', () => {
    const before = PageSums.ofImage(new Uint8Array(2 * PAGE_BYTES).fill(7), 1);
    // The file grows to 5 pages; only page 4 is written (pages 2 and 3, like SQLite's lock-byte page, never are).
    const written = new Uint8Array(PAGE_BYTES).fill(9);
    const sums = new Uint32Array(1);
    PageSums.ofRun(Uint32Array.of(4), 5 * PAGE_BYTES, sums)(0, written);
    const after = before.afterChanges(2, 5 * PAGE_BYTES, Uint32Array.of(4), sums);
    const image = new Uint8Array(5 * PAGE_BYTES);
    image.fill(7, 0, 2 * PAGE_BYTES);
    image.set(written, 4 * PAGE_BYTES);
    expect(after.mismatches(PageSums.ofImage(image, 0))).toEqual({ pages: [], sizeDiffers: false });
  });
});

describe('page checksums taken as the snapshot is read', () => {
  /** Bytes that differ page by page, and a last page cut short. */
  function image(pages: number, tail: number): Uint8Array {
    const bytes = new Uint8Array(pages * PAGE_BYTES + tail);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 12)) & 0xff;
    return bytes;
  }

  it('are the sums of the whole image, whatever the chunks the read reported (page-aligned or not)', () => {
    const bytes = image(9, 1000);
    for (const steps of [[bytes.length], [PAGE_BYTES * 2, PAGE_BYTES * 5, bytes.length], [1, 4097, 4098, 20000, 36000, bytes.length]]) {
      const summer = new PageSummer();
      for (const readBytes of steps) summer.onRead(bytes, readBytes);
      const sums = summer.finish(bytes);
      expect(sums.sums).toEqual(PageSums.ofImage(bytes, 0).sums);
      expect(sums.fileBytes).toBe(bytes.length);
    }
  });

  it('sum what the read did not report, and a file that shrank while read as it was returned', () => {
    const bytes = image(6, 10);
    const untold = new PageSummer();
    untold.onRead(bytes, PAGE_BYTES * 2);
    expect(untold.finish(bytes).sums).toEqual(PageSums.ofImage(bytes, 0).sums);
    expect(new PageSummer().finish(bytes).sums).toEqual(PageSums.ofImage(bytes, 0).sums);
    const shrank = new PageSummer();
    shrank.onRead(bytes, PAGE_BYTES * 3);
    const returned = bytes.subarray(0, PAGE_BYTES * 3 + 5);
    const sums = shrank.finish(returned);
    expect(sums.sums).toEqual(PageSums.ofImage(returned, 0).sums);
    expect(sums.fileBytes).toBe(returned.length);
  });

  it('follow a read in chunks, told of each one before the file is whole', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'image');
    const bytes = image(5000, 123); // ~20 MB: several chunks
    await writeFile(file, bytes);
    const told: number[] = [];
    const summer = new PageSummer();
    const read = await readWholeFile(file, 256 * 1024 * 1024, undefined, (into, readBytes) => {
      told.push(readBytes);
      summer.onRead(into, readBytes);
    });
    expect(Buffer.compare(read, bytes)).toBe(0);
    expect(told.length).toBeGreaterThan(1);
    expect(told.at(-1)).toBe(bytes.length);
    expect(told).toEqual([...told].sort((a, b) => a - b));
    expect(summer.finish(read).sums).toEqual(PageSums.ofImage(bytes, 0).sums);
  });
});

describe('a snapshot a crash interrupted after its pages file, before its checksums', () => {
  /**
   * The data directory such a crash leaves: the earlier snapshot and its checksums, the new
   * snapshot's changed pages as a complete pages file, and every journal file.
   */
  async function interruptedSnapshot() {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const insert = async (n: number) => {
      for (let i = 0; i < n; i += 50) await storage.insertStatements(store.id, Array.from({ length: 50 }, () => makeStatement()));
    };
    await insert(1000);
    await storage.snapshot();
    const earlier = await crashCopy(dir);
    await insert(300);
    await storage.snapshot();
    const later = await crashCopy(dir);
    await storage.close();
    // The pages file: every page the new snapshot changed, as the interrupted snapshot wrote it.
    const before = await readFile(path.join(earlier, SNAPSHOT_FILE));
    const after = await readFile(path.join(later, SNAPSHOT_FILE));
    const changed: number[] = [];
    for (let page = 0; page * PAGE_BYTES < after.length; page++) {
      const slice = (image: Buffer) => image.subarray(page * PAGE_BYTES, (page + 1) * PAGE_BYTES);
      if (!slice(before).equals(slice(after))) changed.push(page);
    }
    const data = Buffer.alloc(changed.length * PAGE_BYTES);
    changed.forEach((page, i) => after.copy(data, i * PAGE_BYTES, page * PAGE_BYTES, (page + 1) * PAGE_BYTES));
    await writeSnapshotPages(nodeStorageFs, earlier, pagesInMemory(Uint32Array.from(changed), data, after.length));
    for (const name of await readdir(later)) if (/^journal-/.test(name)) await copyFile(path.join(later, name), path.join(earlier, name));
    return { dir: earlier, store, changed, pageCount: Math.ceil(after.length / PAGE_BYTES) };
  }

  it('finish it and open whole when nothing else is damaged', async () => {
    const { dir, store } = await interruptedSnapshot();
    const messages: string[] = [];
    const storage = await openIn(dir, { log: (m) => messages.push(m) });
    try {
      expect(messages.join('\n')).toMatch(/wrote the \d+ pages of an interrupted snapshot/);
      expect((await storage.stats(store.id)).statements).toBe(1300);
    } finally {
      await storage.close();
    }
  });

  it('name the pages damaged outside those it wrote, from the earlier checksums and the pages', async () => {
    const { dir, changed, pageCount } = await interruptedSnapshot();
    // Two neighbouring pages in the middle that the interrupted snapshot did not change.
    let page = Math.floor(pageCount / 2);
    while (changed.includes(page) || changed.includes(page + 1)) page++;
    const file = path.join(dir, SNAPSHOT_FILE);
    const image = await readFile(file);
    image.fill(0x55, page * PAGE_BYTES, (page + 2) * PAGE_BYTES);
    await writeFile(file, image);
    const error = await openIn(dir).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(SnapshotDamagedError);
    expect((error as Error).message).toContain(`${file} is damaged: 2 pages: ${page} (bytes ${page * PAGE_BYTES}–`);
  });
});
