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
// The patterns are those of sql.js 1.16's dist/sql-wasm.js (the build Node loads). Another release
// fails the install with this message: check the new file system code and update the patterns.
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
  const { source, changed } = patchSqlJsSource(readFileSync(file, 'utf8'));
  if (changed) writeFileSync(file, source);
  console.log(changed ? 'sql.js: file storage hooks added' : 'sql.js: file storage hooks already there');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
