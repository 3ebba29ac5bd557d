/**
 * What the changed-pages snapshots rely on, guarded: the sql.js the install patches is exactly
 * the published 1.16.0 (checksum), a database file that SQLite may shrink by itself (auto_vacuum)
 * is refused at open, and nothing in the service runs VACUUM.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertKnownSqlJs, unpatched } from '../../scripts/patch-sqljs.mjs';
import { AutoVacuumError } from '../../src-server/storage/sqljs/load-database';
import { openIn, removeTempDirs, rewriteSnapshot, tempDir, withStore } from './sqljs-helpers';

const require = createRequire(import.meta.url);
afterEach(removeTempDirs);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    return statSync(file).isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

describe('sql.js guards', () => {
  it('patches only the published sql.js 1.16.0, and says what to do with any other', () => {
    const installed = readFileSync(require.resolve('sql.js/dist/sql-wasm.js'), 'utf8');
    expect(() => assertKnownSqlJs(installed, '1.16.0')).not.toThrow();
    expect(() => assertKnownSqlJs(unpatched(installed), '1.16.0')).not.toThrow();
    expect(() => assertKnownSqlJs(installed.replace('sqlite3_open', 'sqlite3_opem'), '1.17.0')).toThrow(
      /sql\.js 1\.17\.0: dist\/sql-wasm\.js is not the file Lore patches.*docs\/sqljs-upgrade\.md/,
    );
  });

  it('refuses at open a database file with auto_vacuum on, naming the file and the fix', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    await withStore(storage);
    await storage.close();
    await rewriteSnapshot(dir, 'PRAGMA auto_vacuum = 1; VACUUM;');
    const opening = openIn(dir);
    await expect(opening).rejects.toBeInstanceOf(AutoVacuumError);
    await expect(opening).rejects.toThrow(/lore\.sqlite has auto_vacuum = 1; Lore needs 0/);
  });

  it('runs no VACUUM anywhere in the service', () => {
    const root = new URL('../../src-server/', import.meta.url).pathname;
    const offenders = sourceFiles(root).filter((file) => {
      // Code only: comments may explain why there is none.
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/\/\/.*$/gm, '');
      // The one mention allowed: the advice to run it with the sqlite3 tool on a copy (AutoVacuumError).
      return code.split('\n').some((line) => /\bVACUUM\b/i.test(line.replace(/auto_vacuum/gi, '')) && !line.includes('with the sqlite3 tool'));
    });
    expect(offenders).toEqual([]);
  });
});
