#!/usr/bin/env node
// Runs after `npm install` (package.json "postinstall"). Lets Lore choose how sql.js's in-memory
// file system allocates the storage of a database file, and see which bytes of it are written.
//
// Why: sql.js keeps the database file in a JavaScript typed array that grows by 12.5% at a time,
// each step copying the whole file into fresh memory. Fresh memory is paid for page by page when
// first written, so a step costs far more than the copy: measured here, 30–40 ms at 60 MB and
// seconds at 2 GB, with every request waiting. With the hook, Lore reserves the database's whole
// capacity once (storage/sqljs/file-storage.ts): untouched pages of the reservation are address
// space, not memory, and the file then never moves again.
//
// The hook, `Module.allocateFileStorage(bytes, contents?)`, is optional. It is asked where sql.js's
// memory file system allocates a file's contents: when a file must grow (`bytes` only: sql.js then
// copies the file into the new storage), and when a new file is written whole, as the image a
// database is opened from (`contents`: the hook returns storage that already holds them, and may
// keep the image's own buffer). It returns a Uint8Array of at least `bytes`, or undefined for
// sql.js's own allocation.
//
// Two more hooks, `Module.beforeFileWrite(name, position, length, contents)` and
// `Module.onFileWrite(name, position, length, contents)`, are told of every write to a file, just
// before and just after it: the file's name, where and how much is written, and the file's storage
// then. Lore follows the database file's changed pages with them (storage/sqljs/file-changes.ts),
// so a snapshot writes those pages instead of the whole database, and keeps a page it is writing
// out from being changed under it.
//
// The patterns are those of sql.js 1.16.0's dist/sql-wasm.js (the build Node loads); package.json
// pins that exact version. The file is checked against the checksum of 1.16.0's before it is
// patched: any other file fails the install with a message saying what to do (docs/sqljs-upgrade.md
// walks through moving to a new sql.js).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export const REPLACEMENTS = [
  {
    what: 'growing a file',
    from: 'm=a.Ua.subarray(0,a.Wa),a.Ua=new Uint8Array(g),a.Ua.set(m)',
    to: 'm=a.Ua.subarray(0,a.Wa),a.Ua=Module.allocateFileStorage?.(g)??new Uint8Array(g),a.Ua.set(m)',
  },
  {
    what: 'writing a new file',
    from: 'else a.Ua=b.slice(d,d+c),a.Wa=c',
    to: 'else a.Ua=Module.allocateFileStorage?.(c,b.subarray(d,d+c))??b.slice(d,d+c),a.Wa=c',
  },
  {
    what: 'the start of a write',
    from: 'if(!c)return 0;a=a.node;a.mtime=a.ctime=Date.now();',
    to: 'if(!c)return 0;a=a.node;Module.beforeFileWrite?.(a.name,e,c,a.Ua);a.mtime=a.ctime=Date.now();',
  },
  {
    what: 'the end of a write',
    from: 'return c},Za(a,b,d){',
    to: 'return Module.onFileWrite?.(a.name,e,c,a.Ua),c},Za(a,b,d){',
  },
];

/** SHA-256 of sql.js 1.16.0's dist/sql-wasm.js as published (unpatched). */
export const PRISTINE_SHA256 = '9b96118841c6edfdf53c6f388c1419d1f473cf469df6a6fc2864b386d60bdb5e';

/** The file as published: every replacement (applied or not) undone. */
export function unpatched(source) {
  let original = source;
  for (const { from, to } of REPLACEMENTS) original = original.split(to).join(from);
  return original;
}

/** Refuses a file that is not sql.js 1.16.0's (patched by Lore or not), naming what to do. */
export function assertKnownSqlJs(source, version) {
  const sha256 = createHash('sha256').update(unpatched(source)).digest('hex');
  if (sha256 !== PRISTINE_SHA256) {
    throw new Error(
      `sql.js ${version}: dist/sql-wasm.js is not the file Lore patches (sha256 ${sha256.slice(0, 16)}…, expected ${PRISTINE_SHA256.slice(0, 16)}…). ` +
        'Install the pinned sql.js 1.16.0 (npm ci), or, moving to a new sql.js, follow docs/sqljs-upgrade.md.',
    );
  }
}

/** Applies each replacement not applied yet (an install patched by an earlier Lore gets the ones it lacks). */
export function patchSqlJsSource(source) {
  let patched = source;
  for (const { what, from, to } of REPLACEMENTS) {
    if (patched.includes(to)) continue;
    const count = patched.split(from).length - 1;
    if (count !== 1) {
      throw new Error(`sql.js's file system code is not what Lore patches (${what}: found ${count} times, expected once); see scripts/patch-sqljs.mjs`);
    }
    patched = patched.replace(from, to);
  }
  return { source: patched, changed: patched !== source };
}

function main() {
  const require = createRequire(import.meta.url);
  const file = require.resolve('sql.js/dist/sql-wasm.js');
  const original = readFileSync(file, 'utf8');
  // package.json is not among sql.js's exports: read it beside dist/.
  const { version } = JSON.parse(readFileSync(new URL('../package.json', pathToFileURL(file)), 'utf8'));
  assertKnownSqlJs(original, version);
  const { source, changed } = patchSqlJsSource(original);
  if (changed) writeFileSync(file, source);
  console.log(changed ? 'sql.js: file storage hooks added' : 'sql.js: file storage hooks already there');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
