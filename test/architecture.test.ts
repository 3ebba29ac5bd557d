/**
 * The import graph as docs/architecture.md draws it: the service's code in rooms (folders), each
 * room in a layer, and every import going to its own room or to a lower layer, never up and never
 * sideways into a peer. Imports are read with TypeScript's own pre-processor, type-only and dynamic
 * ones included: a type import is an arrow too (it couples the two), even if nothing runs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SERVER = path.join(ROOT, 'src-server');

/** Lowest first. Rooms in one layer are peers: neither imports the other. */
const LAYERS: readonly (readonly string[])[] = [
  ['xapi', 'limits'],
  ['storage'],
  ['storage/sqljs', 'storage/postgres'],
  ['storage/migrate', 'auth'],
  ['lrs'],
  ['bench'],
  ['admin'],
  ['http'],
  ['service'],
];
const LAYER_OF = new Map(LAYERS.flatMap((rooms, layer) => rooms.map((room) => [room, layer] as const)));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null; // a package
  // A bundler query (`?raw`) names the same file.
  const base = path.resolve(path.dirname(from), specifier.replace(/\?.*$/, ''));
  for (const candidate of [`${base}.ts`, `${base}.tsx`, base, path.join(base, 'index.ts')]) {
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
  }
  throw new Error(`${path.relative(ROOT, from)} imports ${specifier}, which is not there`);
}

/** Each file's relative imports, resolved to files. */
function importGraph(files: string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      return [file, importedFiles.flatMap(({ fileName }) => resolveImport(file, fileName) ?? [])];
    }),
  );
}

/** `storage/sqljs/ops.ts` → `storage/sqljs`; `http/routes/xapi/about.ts` → `http`. */
function roomOf(file: string): string {
  const parts = path.relative(SERVER, file).split(path.sep);
  if (parts.length === 1) return '(top)';
  if (parts[0] === 'storage' && parts.length > 2) return `storage/${parts[1]}`;
  return parts[0]!;
}

/** The files of each cycle found (one per strongly connected component of more than one file, or a file importing itself). */
function cycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component);
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

const serverFiles = sourceFiles(SERVER);
const graph = importGraph(serverFiles);
const relative = (file: string) => path.relative(ROOT, file);

describe('the import graph of src-server', () => {
  it('puts every file in a room of a layer', () => {
    const unplaced = serverFiles.filter((file) => !LAYER_OF.has(roomOf(file))).map(relative);
    expect(unplaced).toEqual([]);
  });

  it('has no arrow up a layer or across to a peer room', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const from = roomOf(file);
      for (const target of targets) {
        const to = roomOf(target);
        if (to === from) continue;
        if (!(LAYER_OF.get(to)! < LAYER_OF.get(from)!)) wrong.push(`${relative(file)} → ${relative(target)} (${from} → ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no cycle of files, in any room', () => {
    expect(cycles(graph).map((component) => component.map(relative).sort())).toEqual([]);
  });

  it('finds a cycle and an upward arrow when there is one (the checks themselves)', () => {
    const a = path.join(SERVER, 'lrs/a.ts');
    const b = path.join(SERVER, 'lrs/b.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toHaveLength(1);
    expect(cycles(new Map([[a, [b]], [b, []]]))).toEqual([]);
    expect(LAYER_OF.get(roomOf(path.join(SERVER, 'admin/x.ts')))! > LAYER_OF.get(roomOf(a))!).toBe(true);
    expect(roomOf(path.join(SERVER, 'storage/sqljs/ops.ts'))).toBe('storage/sqljs');
    expect(roomOf(path.join(SERVER, 'storage/storage.ts'))).toBe('storage');
  });

  it('keeps Electron and the desktop and console code out of the service', () => {
    const reaching = [...graph.entries()].flatMap(([file]) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      return importedFiles.filter(({ fileName }) => fileName === 'electron' || /src-(main|renderer)\//.test(fileName)).map(({ fileName }) => `${relative(file)} → ${fileName}`);
    });
    expect(reaching).toEqual([]);
  });
});

describe('the console and the desktop shell', () => {
  it('reach into the service only for the admin API contract and its pure helpers', () => {
    const allowed = new Set(['src-server/admin/contract.ts', 'src-server/admin/content-disposition.ts', 'src-server/admin/sse-parser.ts', 'src-server/xapi/language-map.ts']);
    const shellAllowed = new Set([...allowed, 'src-server/service/node-flags.ts', 'src-server/storage/sqljs/journal-repair.ts']);
    const outside: string[] = [];
    for (const [dir, permitted] of [
      ['src-renderer', allowed],
      ['src-main', shellAllowed],
    ] as const) {
      const files = sourceFiles(path.join(ROOT, dir));
      for (const [file, targets] of importGraph(files)) {
        for (const target of targets) {
          const name = relative(target);
          if (name.startsWith('src-server/') && !permitted.has(name)) outside.push(`${relative(file)} → ${name}`);
        }
      }
    }
    expect(outside).toEqual([]);
  });
});
