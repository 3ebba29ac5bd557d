/**
 * Reads the service's `--cpu-prof` output: self time per function, each function put in an area
 * (Fastify/HTTP, Node's HTTP and streams, zod, our xAPI validation, prepare/signature/index terms,
 * sql.js, journal, ...). Our own functions are located in src-server through the production
 * build's source maps (out/server/*.js.map). fsync runs on libuv's thread pool, not on the main
 * thread this profile samples: its cost shows as waiting (idle), not as self time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_MAIN } from './processes';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileEntry {
  function: string;
  where: string;
  area: string;
  selfMs: number;
  percent: number;
}

export interface ProfileAnalysis {
  file: string;
  totalMs: number;
  idleMs: number;
  busyMs: number;
  top: ProfileEntry[];
  areas: Array<{ area: string; selfMs: number; percent: number }>;
  /** Our functions (src-server) by inclusive time: themselves and everything they call. */
  ourInclusive: ProfileEntry[];
}

const FASTIFY = /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify|fast-json-stringify|fast-querystring|fast-uri|pino|abstract-logging|rfdc|toad-cache|process-warning|ajv|json-schema-ref-resolver|fast-decode-uri-component|safe-regex2|ret)\//;

const NATIVE = 'native, caller unknown';
const NODE_OTHER = 'Node: event loop, microtasks, other';
const HTTP = 'Fastify / Node HTTP';

function ourArea(source: string): string {
  if (/xapi\/(validate-statements|statement-schema|issue-from-zod|formats|json-value|timestamp|language-tag|version)\.ts/.test(source)) return 'our xAPI validation (xapi/)';
  if (/xapi\/(prepare-statement|statement-signature|index-terms|agent-key|activity-definitions)\.ts/.test(source)) return 'prepare / signature / index terms';
  if (/storage\/sqljs\/(journal|durable-database|fs|group-commit|lock)/.test(source)) return 'journal / fsync';
  if (/storage\//.test(source)) return 'storage: our SQL glue (ops, statement rows)';
  if (/http\//.test(source)) return 'our HTTP plugins and routes';
  if (/admin\//.test(source)) return 'admin (auth, keys, live events)';
  if (/lrs\//.test(source)) return 'lrs/ (statement writes)';
  return 'our code, other';
}

function areaOf(frame: ProfileNode['callFrame'], source: string | null): string {
  const { functionName: name, url } = frame;
  if (name === '(idle)') return 'idle (waiting: I/O, fsync on the thread pool)';
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(program)') return 'V8/native, unattributed';
  if (source) return ourArea(source);
  if (url.startsWith('wasm://') || /node_modules\/sql\.js\//.test(url)) return 'sql.js (SQLite in wasm, its memory FS)';
  if (/node_modules\/zod\//.test(url)) return 'zod validation';
  // Fastify's body parser: its self time is JSON.parse's (V8 inlines the builtin into it).
  if (/node_modules\/secure-json-parse\//.test(url)) return 'JSON parse / stringify';
  if (FASTIFY.test(url)) return HTTP;
  if (/^node:(internal\/)?(http|_http|net|stream|internal\/streams|internal\/http|dns|tls)/.test(url) || /^node:internal\/(streams|http|stream_base|js_stream)/.test(url)) return HTTP;
  if (url.startsWith('node:')) return NODE_OTHER;
  if (url === '' && /^(JSON\.)?(parse|stringify)$/.test(name)) return 'JSON parse / stringify';
  if (url === '') return NATIVE;
  return 'other dependencies';
}

/** Microseconds on the clock V8 stamps profiles with (CLOCK_MONOTONIC, as process.hrtime). */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Self time per function; only samples inside `window` (monotonicMicros() values) when given. */
export function analyseProfile(dir: string, window?: { fromUs: number; toUs: number }): ProfileAnalysis {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  // The build's files (main.js and any chunks it loads) with their source maps.
  const buildDir = `file://${dirname(SERVICE_MAIN)}/`;
  const maps = new Map<string, SourceMap | null>();
  const sourceMapOf = (url: string): SourceMap | null => {
    if (!url.startsWith(buildDir) || !url.endsWith('.js')) return null;
    if (!maps.has(url)) {
      try {
        maps.set(url, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8'))));
      } catch {
        maps.set(url, null);
      }
    }
    return maps.get(url)!;
  };
  const selfByNode = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; sample i lasts until sample i + 1.
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const duration = profile.timeDeltas[i + 1] ?? 0;
    selfByNode.set(profile.samples[i]!, (selfByNode.get(profile.samples[i]!) ?? 0) + duration);
  }
  const byFunction = new Map<string, ProfileEntry>();
  let totalUs = 0;
  let idleUs = 0;
  const describe = (node: ProfileNode) => {
    const frame = node.callFrame;
    let source: string | null = null;
    let where = frame.url ? `${frame.url.replace(/^.*node_modules\//, '')}:${frame.lineNumber + 1}` : '(native)';
    const map = sourceMapOf(frame.url);
    if (map) {
      const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number };
      if (entry.originalSource) {
        source = entry.originalSource.replace(/^.*?(src-server\/)/, '$1');
        where = `${source}:${(entry.originalLine ?? 0) + 1}`;
      }
    }
    return { source, where, area: areaOf(frame, source), key: `${frame.functionName}|${where}`, name: frame.functionName || '(anonymous)' };
  };
  const described = new Map(profile.nodes.map((node) => [node.id, describe(node)]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // A native function (a binding such as writev or fdatasync, a builtin) or a Node internal one
  // (fs promises, streams) counts in the area of the nearest caller that has one: the journal's
  // fdatasync under "journal", a socket write under Fastify's reply.
  const borrows = (area: string) => area === NATIVE || area === NODE_OTHER;
  for (const node of profile.nodes) {
    const d = described.get(node.id)!;
    if (!borrows(d.area)) continue;
    for (let id = parent.get(node.id); id !== undefined; id = parent.get(id)) {
      const up = described.get(id)!;
      if (!borrows(up.area)) {
        d.area = up.area;
        break;
      }
    }
  }
  const inclusive = new Map<string, ProfileEntry>();
  for (const node of profile.nodes) {
    const us = selfByNode.get(node.id) ?? 0;
    if (us === 0) continue;
    totalUs += us;
    const d = described.get(node.id)!;
    if (d.area.startsWith('idle')) idleUs += us;
    const entry = byFunction.get(d.key) ?? { function: d.name, where: d.where, area: d.area, selfMs: 0, percent: 0 };
    entry.selfMs += us / 1000;
    byFunction.set(d.key, entry);
    // Inclusive: add this sample's time once to every one of our functions on its stack.
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const up = described.get(id)!;
      if (!up.source || seen.has(up.key)) continue;
      seen.add(up.key);
      const incl = inclusive.get(up.key) ?? { function: up.name, where: up.where, area: up.area, selfMs: 0, percent: 0 };
      incl.selfMs += us / 1000;
      inclusive.set(up.key, incl);
    }
  }
  const busyMs = (totalUs - idleUs) / 1000;
  const entries = [...byFunction.values()].filter((e) => !e.area.startsWith('idle'));
  for (const e of entries) e.percent = (100 * e.selfMs) / busyMs;
  const areas = new Map<string, number>();
  for (const e of entries) areas.set(e.area, (areas.get(e.area) ?? 0) + e.selfMs);
  const ourInclusive = [...inclusive.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, 25);
  for (const e of ourInclusive) e.percent = (100 * e.selfMs) / busyMs;
  return {
    ourInclusive,
    file: join(dir, file),
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    busyMs,
    top: entries.sort((a, b) => b.selfMs - a.selfMs).slice(0, 25),
    areas: [...areas.entries()].map(([area, selfMs]) => ({ area, selfMs, percent: (100 * selfMs) / busyMs })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

export function printProfile(analysis: ProfileAnalysis): void {
  const lines = [
    `\nCPU profile of the service (${analysis.file})`,
    `main thread during the load: ${analysis.totalMs.toFixed(0)} ms sampled, ${analysis.busyMs.toFixed(0)} ms busy, ${analysis.idleMs.toFixed(0)} ms idle`,
    '\nself time by area (% of busy)',
    ...analysis.areas.map((a) => `  ${a.percent.toFixed(1).padStart(5)}%  ${a.selfMs.toFixed(0).padStart(6)} ms  ${a.area}`),
    '\ntop functions by self time',
    ...analysis.top.map((e) => `  ${e.percent.toFixed(1).padStart(5)}%  ${e.function.slice(0, 40).padEnd(40)}  ${e.area.padEnd(34)}  ${e.where}`),
    '\nour functions by inclusive time (with what they call)',
    ...analysis.ourInclusive.map((e) => `  ${e.percent.toFixed(1).padStart(5)}%  ${e.function.slice(0, 40).padEnd(40)}  ${e.where}`),
  ];
  console.log(lines.join('\n'));
}
