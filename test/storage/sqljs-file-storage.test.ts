import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { REPLACEMENTS, patchSqlJsSource } from '../../scripts/patch-sqljs.mjs';
import { RESERVATION_BYTES, RESERVE_FROM_BYTES, allocateFileStorage } from '../../src-server/storage/sqljs/file-storage';

const require = createRequire(import.meta.url);

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
      const allocateFileStorage = (bytes) => { asked.push(bytes); return bytes >= 1 << 20 ? new Uint8Array(64 << 20) : undefined; };
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
    // The copy of the image was asked for its whole size at once.
    expect(result.asked.slice(result.grown)).toContain(result.imageBytes);
  });

  it("reserves the database's capacity for a file past the threshold, and leaves small files to sql.js", () => {
    expect(allocateFileStorage(RESERVE_FROM_BYTES - 1)).toBeUndefined();
    expect(allocateFileStorage(RESERVE_FROM_BYTES)?.length).toBe(RESERVATION_BYTES);
    expect(allocateFileStorage(RESERVATION_BYTES + 1)).toBeUndefined();
  });
});
