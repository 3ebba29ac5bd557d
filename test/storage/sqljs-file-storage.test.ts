import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { REPLACEMENTS, patchSqlJsSource } from '../../scripts/patch-sqljs.mjs';
import { RESERVATION_BYTES, RESERVE_FROM_BYTES, allocateFileStorage, imageStorageFor } from '../../src-server/storage/sqljs/file-storage';
import type { DocumentKey } from '../../src-server/storage/storage';
import { at } from './rows';
import { openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

const require = createRequire(import.meta.url);

afterEach(removeTempDirs);

describe("sql.js's file storage hook", () => {
  it('is patched in once, and a second run changes nothing', () => {
    const pristine = `prefix;${REPLACEMENTS.map((r) => r.from).join(';middle;')};suffix`;
    const once = patchSqlJsSource(pristine);
    expect(once.changed).toBe(true);
    for (const r of REPLACEMENTS) expect(once.source).toContain(r.to);
    expect(patchSqlJsSource(once.source)).toEqual({ source: once.source, changed: false });
  });

  it('refuses a sql.js whose file system code is not the one it knows, naming what is missing', () => {
    expect(() => patchSqlJsSource(REPLACEMENTS[0]!.from)).toThrow(/writing a new file: found 0 times/);
  });

  it('is in the installed sql.js (the postinstall ran)', () => {
    const installed = readFileSync(require.resolve('sql.js/dist/sql-wasm.js'), 'utf8');
    expect(patchSqlJsSource(installed).changed).toBe(false);
  });

  it('lets the file grow inside the storage it hands out, and the database stays whole', () => {
    // A fresh process: sql.js instantiates once per process, with the first configuration given.
    const script = `
      const initSqlJs = require('sql.js');
      const asked = [];
      const allocateFileStorage = (bytes, contents) => {
        asked.push(bytes);
        if (bytes < 1 << 20) return undefined;
        const storage = new Uint8Array(64 << 20);
        if (contents) storage.set(contents);
        return storage;
      };
      initSqlJs({ allocateFileStorage }).then((SQL) => {
        const db = new SQL.Database();
        db.run('CREATE TABLE t (n INTEGER PRIMARY KEY, body TEXT)');
        db.run('BEGIN');
        for (let n = 0; n < 4000; n++) db.run('INSERT INTO t VALUES (?, ?)', [n, String(n).padEnd(2000, 'x')]);
        db.run('COMMIT');
        const grown = asked.length;
        const image = db.export();
        const copy = new SQL.Database(image);
        const [[count, sum]] = copy.exec("SELECT count(*), sum(length(body)) FROM t WHERE body LIKE n || 'x%'")[0].values;
        console.log(JSON.stringify({ grown, asked, count, sum, imageBytes: image.length }));
      });`;
    const result = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: process.cwd(), encoding: 'utf8' })) as {
      grown: number;
      asked: number[];
      count: number;
      sum: number;
      imageBytes: number;
    };
    expect(result.count).toBe(4000);
    expect(result.sum).toBe(4000 * 2000);
    expect(result.imageBytes).toBeGreaterThan(8_000_000);
    // Asked while small (declined), then once past 1 MiB: the file then grew inside the 64 MiB.
    expect(result.asked.slice(0, result.grown).filter((bytes) => bytes >= 1 << 20)).toHaveLength(1);
    // The copy was opened from the image: asked once for its whole size, with its bytes.
    expect(result.asked.slice(result.grown)).toContain(result.imageBytes);
  });

  it("reserves the database's capacity for a file past the threshold, doubles smaller ones, and leaves the smallest to sql.js", () => {
    expect(allocateFileStorage((1 << 20) - 1)).toBeUndefined();
    // sql.js asks for 12.5% more than the file has; it gets the next power of two.
    expect(allocateFileStorage(1 << 20)?.length).toBe(1 << 20);
    expect(allocateFileStorage(1.125 * (2 << 20))?.length).toBe(4 << 20);
    expect(allocateFileStorage(RESERVE_FROM_BYTES - 1)?.length).toBe(RESERVE_FROM_BYTES);
    expect(allocateFileStorage(RESERVE_FROM_BYTES)?.length).toBe(RESERVATION_BYTES);
    expect(allocateFileStorage(RESERVATION_BYTES + 1)).toBeUndefined();
    // An image not read into a reservation (a backup opened to be checked) stays sql.js's.
    expect(allocateFileStorage(RESERVE_FROM_BYTES, randomBytes(RESERVE_FROM_BYTES))).toBeUndefined();
  });

  it('keeps an image read into a reservation as the file itself, without a copy', () => {
    expect(imageStorageFor(RESERVE_FROM_BYTES - 1)).toBeUndefined();
    const reservation = imageStorageFor(RESERVE_FROM_BYTES)!;
    expect(reservation.length).toBe(RESERVATION_BYTES);
    reservation[7] = 42;
    const kept = allocateFileStorage(RESERVE_FROM_BYTES, reservation.subarray(0, RESERVE_FROM_BYTES))!;
    expect(kept.buffer).toBe(reservation.buffer);
    expect(kept.length).toBe(RESERVATION_BYTES);
    expect(kept[7]).toBe(42);
  });

  it('keeps a database past the threshold whole through writes, snapshots and reopening from its reservation', async () => {
    const dir = await tempDir();
    const documents = Array.from({ length: 24 }, (_, i) => ({ id: `doc-${i}`, content: randomBytes(1024 * 1024) }));
    const key = (id: string): DocumentKey => ({ kind: 'state', activityId: 'http://example.com/a', agent: 'mbox:mailto:a@example.com', registration: null, id });
    const write = async (storage: Awaited<ReturnType<typeof openIn>>, storeId: string, from: number, to: number) => {
      for (const { id, content } of documents.slice(from, to)) {
        expect(await storage.upsertDocument(storeId, key(id), { contentType: 'application/octet-stream', content, etag: id, updated: at(1) }, null)).toBe(true);
      }
    };
    let storage = await openIn(dir);
    const store = await withStore(storage);
    await write(storage, store.id, 0, 20); // 20 MiB: past the threshold while written
    await storage.close(); // a snapshot of more than 16 MiB
    storage = await openIn(dir); // read into a reservation, kept by the file system
    await write(storage, store.id, 20, 24);
    await storage.close();
    storage = await openIn(dir);
    try {
      for (const { id, content } of documents) expect(Buffer.compare((await storage.findDocument(store.id, key(id)))!.content, content)).toBe(0);
    } finally {
      await storage.close();
    }
  });
});
