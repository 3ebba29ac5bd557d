/**
 * Snapshot files written a slice at a time (snapshot-pages.ts): the runs in flight share one
 * buffer, reused as their writes complete, and the copying gives the event loop back every few
 * milliseconds, so requests (and the writers behind them) are served while a snapshot of any size
 * is written. What is written must still be exactly the pages as they were when taken.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_PAGES_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import { FileChanges, PAGE_BYTES, pagesInMemory } from '../../src-server/storage/sqljs/file-changes';
import type { PageSource } from '../../src-server/storage/sqljs/file-changes';
import type { StorageFs } from '../../src-server/storage/sqljs/fs';
import { applySnapshotPages, decodeSnapshotPages, writeSnapshotImage, writeSnapshotPages } from '../../src-server/storage/sqljs/snapshot-pages';
import { PageSums } from '../../src-server/storage/sqljs/snapshot-sums';
import { sqlJsFileName } from '../../src-server/storage/sqljs/sql';
import { SNAPSHOT_FILE } from '../../src-server/storage/sqljs/sqljs-storage';
import { loadSqlJs, removeTempDirs } from './sqljs-helpers';

afterAll(removeTempDirs);

const DIR = '/data';

/**
 * Files in memory. A write takes its bytes from the caller's buffer when it completes, after
 * `delay(file)` milliseconds (at once when negative), as a write on the thread pool does: a buffer reused while its write is
 * in flight shows as wrong bytes in the file.
 */
function memoryFs(delay: (name: string) => number): StorageFs & { file(name: string): Uint8Array | null } {
  // Each file's bytes and size; the bytes grow by doubling.
  const files = new Map<string, { bytes: Uint8Array; size: number }>();
  const resize = (name: string, size: number) => {
    const file = files.get(name)!;
    if (size > file.bytes.length) {
      const bytes = new Uint8Array(Math.max(size, 2 * file.bytes.length));
      bytes.set(file.bytes.subarray(0, file.size));
      file.bytes = bytes;
    } else if (size < file.size) {
      file.bytes.fill(0, size, file.size);
    }
    file.size = size;
    return file.bytes;
  };
  const file = (name: string) => {
    const found = files.get(name);
    return found ? found.bytes.subarray(0, found.size) : null;
  };
  return {
    file,
    mkdir: async () => {},
    readFile: async (name) => file(name),
    readdir: async () => [...files.keys()].map((name) => path.basename(name)),
    open: async (name, { truncate }) => {
      if (truncate || !files.has(name)) files.set(name, { bytes: new Uint8Array(0), size: 0 });
      return {
        write: (data, position) =>
          new Promise<void>((resolve) => {
            const complete = () => {
              const size = files.get(name)!.size;
              resize(name, Math.max(size, position + data.length)).set(data, position);
              resolve();
            };
            const ms = delay(name);
            if (ms < 0) complete();
            else setTimeout(complete, ms);
          }),
        datasync: async () => {},
        truncate: async (length) => {
          resize(name, length);
        },
        close: async () => {},
      };
    },
    rename: async (from, to) => {
      files.set(to, files.get(from)!);
      files.delete(from);
    },
    unlink: async (name) => {
      files.delete(name);
    },
    syncDir: async () => {},
  };
}

/** Deterministic pseudo-random numbers, so a failure repeats. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** `count` ascending page numbers, runs of consecutive ones among scattered ones, each page's bytes its own. */
function scatteredPages(count: number, next: () => number): { pages: Uint32Array; data: Uint8Array } {
  const pages = new Uint32Array(count);
  let page = 0;
  for (let i = 0; i < count; i++) {
    page += next() < 0.6 ? 1 : 2 + Math.floor(next() * 4);
    pages[i] = page;
  }
  const data = new Uint8Array(count * PAGE_BYTES);
  for (let i = 0; i < data.length; i += 4) data[i] = Math.floor(next() * 256);
  return { pages, data };
}

describe('snapshot files written a slice at a time', () => {
  it('write every page where it belongs, whatever order the writes complete in (more pages than the buffer of writes in flight holds)', async () => {
    const next = random(7);
    const { pages, data } = scatteredPages(6_000, next);
    // The file ends inside the last page: its slot in the pages file is zero past the end.
    const fileBytes = pages[pages.length - 1]! * PAGE_BYTES + 100;
    const source = pagesInMemory(pages, data, fileBytes);
    // Writes to the pages file take longer than copying the buffer's worth of runs (1 MiB each):
    // a run copied over one in flight would show. The scattered writes into the snapshot are many.
    const fs = memoryFs((name) => (name.endsWith(SNAPSHOT_FILE) ? Math.floor(next() * 3) - 1 : 500 + Math.floor(next() * 200)));
    const sums = new Uint32Array(pages.length);
    await writeSnapshotPages(fs, DIR, source, PageSums.ofRun(pages, fileBytes, sums));

    const written = decodeSnapshotPages(fs.file(path.join(DIR, SNAPSHOT_PAGES_FILE))!);
    expect(written.pages).toEqual(pages);
    const back = new Uint8Array(data.length);
    written.copy(0, pages.length, back);
    const expected = data.slice();
    expected.fill(0, (pages.length - 1) * PAGE_BYTES + 100);
    expect(Buffer.compare(back, expected)).toBe(0);

    await applySnapshotPages(fs, DIR, written);
    const snapshot = fs.file(path.join(DIR, SNAPSHOT_FILE))!;
    expect(snapshot.length).toBe(fileBytes);
    const ofSnapshot = PageSums.ofImage(snapshot, 0).sums;
    for (const [i, page] of pages.entries()) {
      const inside = Math.min(PAGE_BYTES, fileBytes - page * PAGE_BYTES);
      expect(Buffer.compare(snapshot.subarray(page * PAGE_BYTES, page * PAGE_BYTES + inside), expected.subarray(i * PAGE_BYTES, i * PAGE_BYTES + inside))).toBe(0);
      expect(sums[i]).toBe(ofSnapshot[page]);
    }
    expect(fs.file(path.join(DIR, SNAPSHOT_PAGES_FILE))).toBeNull();
  });

  it('give the event loop back every few milliseconds of copying, even when every write is done at once', async () => {
    const { pages, data } = scatteredPages(2_000, random(3));
    const memory = pagesInMemory(pages, data, (pages[pages.length - 1]! + 1) * PAGE_BYTES);
    let turns = 0;
    const pagesPerTurn = new Map<number, number>();
    // Copying costs 30 µs a page: 60 ms for them all.
    const slow: PageSource = {
      ...memory,
      copy: (from, to, into) => {
        const until = performance.now() + 0.03 * (to - from);
        while (performance.now() < until);
        pagesPerTurn.set(turns, (pagesPerTurn.get(turns) ?? 0) + to - from);
        memory.copy(from, to, into);
      },
    };
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    try {
      for (const write of [writeSnapshotPages, applySnapshotPages]) {
        pagesPerTurn.clear();
        // Writes that complete at once: awaiting them never leaves the current turn of the loop.
        await write(memoryFs(() => -1), DIR, slow);
        expect([...pagesPerTurn.values()].reduce((a, b) => a + b)).toBe(2_000);
        // SLICE_MS is 8: 8 ms of copying (270 pages here), and the run under way (at most 256), per turn.
        expect(Math.max(...pagesPerTurn.values())).toBeLessThan(600);
      }
    } finally {
      counting = false;
    }
  });

  it('write the first snapshot from the live file as it was when taken, whatever is written to it after', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    const changes = new FileChanges(sqlJsFileName(db));
    try {
      db.run('CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)');
      db.run('BEGIN');
      for (let n = 0; n < 3_000; n++) db.run('INSERT INTO t VALUES (?, ?)', [n, 'x'.repeat(500)]);
      db.run('COMMIT');
      const [pageCount, pageSize] = db.exec('SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()')[0]!.values[0] as number[];
      const fileBytes = pageCount! * pageSize!;
      const image = changes.takeWhole(fileBytes);
      const asTaken = new Uint8Array(image.pages.length * PAGE_BYTES);
      image.copy(0, image.pages.length, asTaken);

      const fs = memoryFs(() => 1);
      const sums = new Uint32Array(image.pages.length);
      const writing = writeSnapshotImage(fs, DIR, image, PageSums.ofRun(image.pages, fileBytes, sums));
      // Every row rewritten and more added while the snapshot is written.
      db.run("UPDATE t SET body = 'y' || body");
      for (let n = 3_000; n < 3_500; n++) db.run('INSERT INTO t VALUES (?, ?)', [n, 'z'.repeat(500)]);
      await writing;

      const snapshot = fs.file(path.join(DIR, SNAPSHOT_FILE))!;
      expect(snapshot.length).toBe(fileBytes);
      expect(Buffer.compare(snapshot, asTaken.subarray(0, fileBytes))).toBe(0);
      expect(sums).toEqual(PageSums.ofImage(snapshot, 0).sums);
      const reopened = new SQL.Database(snapshot);
      expect(reopened.exec("SELECT count(*), sum(body LIKE 'x%') FROM t")[0]!.values).toEqual([[3_000, 3_000]]);
      reopened.close();
      // Changes after the take are the next snapshot's.
      expect(changes.changedPages).toBeGreaterThan(0);
    } finally {
      changes.release();
      changes.dispose();
      db.close();
    }
  });
});
