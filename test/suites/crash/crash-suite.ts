/**
 * Crash suite: concurrent writers against the real service process, killed with SIGKILL at random
 * moments; after every restart each acknowledged write (answered 200/204) must be there and
 * readable. Then damaged data directories: torn and corrupted journal tails, a snapshot replaced
 * mid-write, a snapshot renamed before its journal was deleted. The service must start, keep every
 * complete record and log what it dropped.
 *
 * Everything random comes from the seed, which the report prints.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAGE_BYTES } from '../../../src-server/storage/sqljs/file-changes';
import { encodeSnapshotPagesHeader } from '../../../src-server/storage/sqljs/snapshot-pages';
import { createRng, uuidFrom, type Rng } from '../lib/prng';
import { createStoreAndKey, killHard, startService, stopGracefully, xapiHeaders, type ServiceProcess } from '../lib/service';
import { formatSummary, type SummaryLine } from '../lib/stats';

export interface CrashOptions {
  rounds: number;
  writers: number;
  seed: number;
  /** The kill lands this many ms after the writers start, drawn uniformly. */
  killAfterMs: [number, number];
  /**
   * Lowers the journal size that triggers a snapshot (the service's LORE_SNAPSHOT_THRESHOLD_BYTES
   * hook), so that kills also land while snapshots are written.
   */
  snapshotThresholdBytes?: number;
  /** Which damaged-directory cases to run: all of them, or one of each kind (journal tail, snapshot). */
  damageCases: 'all' | 'fast' | 'none';
  /** Runs the service on this (empty) PostgreSQL database instead of the embedded one. */
  databaseUrl?: string;
  log?: (line: string) => void;
}

interface DamageCaseResult {
  name: string;
  started: boolean;
  /** Acknowledged statements whose journal record was left whole. */
  expected: number;
  found: number;
  /** The service's log said what it dropped (only asked of the journal cases). */
  loggedDrop: boolean | null;
  writableAfter: boolean;
  ok: boolean;
  detail: string;
}

export interface CrashReport {
  seed: number;
  rounds: number;
  roundsSurvived: number;
  statementsAcknowledged: number;
  statementsFound: number;
  documentsAcknowledged: number;
  documentsFound: number;
  bookmarksBehind: number;
  serverErrors: number;
  missing: string[];
  damage: DamageCaseResult[];
  ok: boolean;
  summary: string;
}

const STORE = 'crash';
const ACTIVITY = 'http://lore.example/crash/course';
const AGENT = JSON.stringify({ mbox: 'mailto:writer@example.com' });

function statement(id: string, writer: number) {
  return {
    id,
    actor: { mbox: `mailto:writer-${writer}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
    object: { id: `http://lore.example/crash/${id}` },
  };
}

function stateUrl(base: string, stateId: string): string {
  return `${base}/${STORE}/xAPI/activities/state?activityId=${encodeURIComponent(ACTIVITY)}&agent=${encodeURIComponent(AGENT)}&stateId=${encodeURIComponent(stateId)}`;
}

/** Everything acknowledged so far, across rounds. */
interface Ledger {
  statements: Map<string, number>;
  documents: Map<string, string>;
  /** Per writer: the highest bookmark value acknowledged. */
  bookmarks: Map<number, number>;
  bookmarkCounters: Map<number, number>;
  serverErrors: number;
  unexpected: string[];
}

async function runWriter(base: string, basic: string, writer: number, round: number, rng: Rng, ledger: Ledger, stopped: () => boolean): Promise<void> {
  const headers = xapiHeaders(basic);
  let n = 0;
  while (!stopped()) {
    n++;
    const choice = rng.next();
    let request: { url: string; init: RequestInit; ack: () => void };
    if (choice < 0.35) {
      const id = uuidFrom(rng);
      request = {
        url: `${base}/${STORE}/xAPI/statements`,
        init: { method: 'POST', headers, body: JSON.stringify(statement(id, writer)) },
        ack: () => ledger.statements.set(id, round),
      };
    } else if (choice < 0.55) {
      const ids = Array.from({ length: rng.int(2, 8) }, () => uuidFrom(rng));
      request = {
        url: `${base}/${STORE}/xAPI/statements`,
        init: { method: 'POST', headers, body: JSON.stringify(ids.map((id) => statement(id, writer))) },
        ack: () => ids.forEach((id) => ledger.statements.set(id, round)),
      };
    } else if (choice < 0.75) {
      const id = uuidFrom(rng);
      request = {
        url: `${base}/${STORE}/xAPI/statements?statementId=${id}`,
        init: { method: 'PUT', headers, body: JSON.stringify(statement(id, writer)) },
        ack: () => ledger.statements.set(id, round),
      };
    } else if (choice < 0.9) {
      const stateId = `doc-${round}-${writer}-${n}`;
      const content = JSON.stringify({ writer, round, n, note: 'x'.repeat(rng.int(0, 200)) });
      request = {
        url: stateUrl(base, stateId),
        init: { method: 'PUT', headers, body: content },
        ack: () => ledger.documents.set(stateId, content),
      };
    } else {
      const value = (ledger.bookmarkCounters.get(writer) ?? 0) + 1;
      ledger.bookmarkCounters.set(writer, value);
      request = {
        url: stateUrl(base, `bookmark-${writer}`),
        init: { method: 'PUT', headers, body: JSON.stringify({ value }) },
        ack: () => ledger.bookmarks.set(writer, Math.max(value, ledger.bookmarks.get(writer) ?? 0)),
      };
    }
    let response: Response;
    try {
      response = await fetch(request.url, request.init);
      await response.arrayBuffer();
    } catch {
      // The kill landed: this write was never acknowledged. Nothing else can refuse a connection here.
      return;
    }
    if (response.status === 200 || response.status === 204) request.ack();
    else if (response.status >= 500) ledger.serverErrors++;
    else ledger.unexpected.push(`${request.init.method} ${request.url} → ${response.status}`);
  }
}

async function allStatementIds(base: string, basic: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let url = `${base}/${STORE}/xAPI/statements?limit=500`;
  while (url) {
    const response = await fetch(url, { headers: xapiHeaders(basic) });
    if (response.status !== 200) throw new Error(`GET statements answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { statements: Array<{ id: string }>; more: string };
    for (const s of body.statements) ids.add(s.id);
    url = body.more ? `${base}${body.more}` : '';
  }
  return ids;
}

/** Runs `task` over `items` with a few requests in flight; returns the items it answered false for. */
async function failing<T>(items: T[], concurrency: number, task: (item: T) => Promise<boolean>): Promise<T[]> {
  const failed: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        if (!(await task(item))) failed.push(item);
      }
    }),
  );
  return failed;
}

/** Answers other than 200 and 404 say the check itself was refused, not that data is missing. */
const refusals: string[] = [];
function noteRefusal(what: string, response: Response): void {
  if (response.status !== 200 && response.status !== 404 && refusals.length < 20) refusals.push(`${what} answered ${response.status}`);
}

async function statementReadable(base: string, basic: string, id: string): Promise<boolean> {
  const response = await fetch(`${base}/${STORE}/xAPI/statements?statementId=${id}`, { headers: xapiHeaders(basic) });
  noteRefusal(`GET statement ${id}`, response);
  if (response.status !== 200) return false;
  const body = (await response.json()) as { id?: string; object?: { id?: string } };
  return body.id === id && body.object?.id === `http://lore.example/crash/${id}`;
}

async function documentReadable(base: string, basic: string, stateId: string, content: string): Promise<boolean> {
  const response = await fetch(stateUrl(base, stateId), { headers: xapiHeaders(basic) });
  noteRefusal(`GET state ${stateId}`, response);
  return response.status === 200 && (await response.text()) === content;
}

interface Verification {
  statementsFound: number;
  documentsFound: number;
  bookmarksBehind: number;
  missing: string[];
}

async function verify(base: string, basic: string, ledger: Ledger, round: number, rng: Rng): Promise<Verification> {
  const missing: string[] = [];
  const listed = await allStatementIds(base, basic);
  const acknowledged = [...ledger.statements.keys()];
  for (const id of acknowledged) if (!listed.has(id)) missing.push(`statement ${id} (by query)`);
  // By id: every statement of this round, and a sample of the earlier ones.
  const earlier = acknowledged.filter((id) => ledger.statements.get(id) !== round);
  const sample = [...acknowledged.filter((id) => ledger.statements.get(id) === round), ...earlier.filter(() => rng.chance(200 / Math.max(200, earlier.length)))];
  for (const id of await failing(sample, 8, (id) => statementReadable(base, basic, id))) missing.push(`statement ${id} (by id)`);
  const documents = [...ledger.documents.entries()];
  for (const [stateId] of await failing(documents, 8, ([stateId, content]) => documentReadable(base, basic, stateId, content))) {
    missing.push(`state document ${stateId}`);
  }
  let bookmarksBehind = 0;
  for (const [writer, acked] of ledger.bookmarks) {
    const response = await fetch(stateUrl(base, `bookmark-${writer}`), { headers: xapiHeaders(basic) });
    noteRefusal(`GET bookmark-${writer}`, response);
    const value = response.status === 200 ? ((await response.json()) as { value: number }).value : 0;
    // A later write that was in flight at the kill may have landed too; an earlier value means a lost write.
    if (value < acked) {
      bookmarksBehind++;
      missing.push(`bookmark of writer ${writer}: ${value} < acknowledged ${acked}`);
    }
  }
  if (refusals.length > 0) missing.push(`(checks refused: ${refusals.splice(0).slice(0, 3).join('; ')})`);
  return {
    statementsFound: acknowledged.length - missing.filter((m) => m.startsWith('statement') && m.endsWith('(by query)')).length,
    documentsFound: documents.length - missing.filter((m) => m.startsWith('state document')).length,
    bookmarksBehind,
    missing,
  };
}

async function killRounds(options: CrashOptions, rng: Rng, log: (line: string) => void) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-suite-crash-'));
  const ledger: Ledger = { statements: new Map(), documents: new Map(), bookmarks: new Map(), bookmarkCounters: new Map(), serverErrors: 0, unexpected: [] };
  let survived = 0;
  let last: Verification = { statementsFound: 0, documentsFound: 0, bookmarksBehind: 0, missing: [] };
  let basic = '';
  let service: ServiceProcess | null = null;
  // The rate limit off: 20 writers and the read-back of thousands of writes would meet the
  // default per-key limit, and a 429 there would say nothing about durability.
  const env: Record<string, string> = { LRS_RATE_LIMIT: '0' };
  if (options.snapshotThresholdBytes) env['LORE_SNAPSHOT_THRESHOLD_BYTES'] = String(options.snapshotThresholdBytes);
  if (options.databaseUrl) env['LRS_DATABASE_URL'] = options.databaseUrl;
  let snapshots = 0;
  const countSnapshots = (s: ServiceProcess) => (s.output().match(/snapshot written/g) ?? []).length;
  try {
    service = await startService(dataDir, env);
    basic = (await createStoreAndKey(service, STORE)).basic;
    for (let round = 1; round <= options.rounds; round++) {
      let stopped = false;
      const writers = Array.from({ length: options.writers }, (_, w) => runWriter(service!.url, basic, w, round, rng.fork(), ledger, () => stopped));
      const killAfter = rng.int(options.killAfterMs[0], options.killAfterMs[1]);
      await new Promise((resolve) => setTimeout(resolve, killAfter));
      await killHard(service);
      snapshots += countSnapshots(service);
      stopped = true;
      await Promise.all(writers);
      try {
        service = await startService(dataDir, env);
      } catch (error) {
        last.missing.push(`round ${round}: the service did not start: ${(error as Error).message}`);
        service = null;
        break;
      }
      last = await verify(service.url, basic, ledger, round, rng);
      log(
        `round ${round}: killed after ${killAfter} ms; acknowledged ${ledger.statements.size} statements, ${ledger.documents.size} documents so far; missing ${last.missing.length}`,
      );
      if (last.missing.length > 0) break;
      survived++;
    }
  } finally {
    if (service) await killHard(service);
    // A failed run keeps its data directory: the journal and snapshot are the evidence.
    if (last.missing.length > 0) log(`data directory kept for inspection: ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
  log(`snapshots written during the rounds: ${snapshots}`);
  if (ledger.unexpected.length > 0) last.missing.push(...ledger.unexpected.slice(0, 5).map((u) => `unexpected answer: ${u}`));
  return { ledger, survived, last, snapshots };
}

// ---------------------------------------------------------------------------------------------
// Damaged data directories

interface JournalRecordSpan {
  offset: number;
  length: number;
  payload: string;
}

/** The newest journal file and its records, read with the framing storage/README.md documents. */
function readNewestJournal(dataDir: string): { path: string; records: JournalRecordSpan[] } {
  const name = readdirSync(dataDir)
    .filter((n) => /^journal-\d+\.log$/.test(n))
    .sort()
    .at(-1);
  if (!name) throw new Error(`no journal file in ${dataDir}: ${readdirSync(dataDir).join(', ')}`);
  const path = join(dataDir, name);
  const bytes = readFileSync(path);
  const records: JournalRecordSpan[] = [];
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(offset);
    if (offset + 8 + length > bytes.length) break;
    records.push({ offset, length: 8 + length, payload: bytes.subarray(offset + 8, offset + 8 + length).toString('utf8') });
    offset += 8 + length;
  }
  return { path, records };
}

async function writeStatements(service: ServiceProcess, basic: string, rng: Rng, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = uuidFrom(rng);
    const response = await fetch(`${service.url}/${STORE}/xAPI/statements`, { method: 'POST', headers: xapiHeaders(basic), body: JSON.stringify(statement(id, 0)) });
    if (response.status !== 200) throw new Error(`setup write answered ${response.status}`);
    ids.push(id);
  }
  return ids;
}

interface DamageCase {
  name: string;
  /** Damages the stopped data directory; returns the acknowledged ids the damage may take away. */
  damage(dataDir: string, rng: Rng, acknowledged: string[], before: { snapshot: Buffer | null }): { lost: string[]; journal: boolean };
  /** One of the cases npm test runs. */
  fast?: boolean;
  /** Before the final kill: a graceful stop first, so that a snapshot exists. */
  snapshotFirst?: boolean;
  /** A copy of the journal put back after the snapshot deleted it (crash between rename and deletion). */
  journalReplayedTwice?: boolean;
  /** Two graceful stops, the second writing changed pages; `before.snapshot` is the snapshot before it. */
  pagesSnapshot?: boolean;
}

/** The pages of `after` that differ from `before` (or lie past its end), as a snapshot's pages file holds them. */
function changedPages(before: Buffer, after: Buffer) {
  const pages: number[] = [];
  for (let page = 0; page * PAGE_BYTES < after.length; page++) {
    const from = page * PAGE_BYTES;
    if (!after.subarray(from, from + PAGE_BYTES).equals(before.subarray(from, from + PAGE_BYTES))) pages.push(page);
  }
  const data = Buffer.alloc(pages.length * PAGE_BYTES);
  pages.forEach((page, i) => after.copy(data, i * PAGE_BYTES, page * PAGE_BYTES, Math.min((page + 1) * PAGE_BYTES, after.length)));
  return { pages: Uint32Array.from(pages), data, fileBytes: after.length };
}

function idsIn(records: JournalRecordSpan[], ids: string[]): string[] {
  return ids.filter((id) => records.some((record) => record.payload.includes(id)));
}

const DAMAGE_CASES: DamageCase[] = [
  {
    name: 'journal torn mid-record',
    damage(dataDir, rng, acknowledged) {
      const { path, records } = readNewestJournal(dataDir);
      const last = records.at(-1)!;
      truncateSync(path, last.offset + rng.int(1, last.length - 1));
      return { lost: idsIn([last], acknowledged), journal: true };
    },
  },
  {
    name: 'journal torn inside a record header',
    damage(dataDir, rng, acknowledged) {
      const { path, records } = readNewestJournal(dataDir);
      const last = records.at(-1)!;
      truncateSync(path, last.offset + rng.int(1, 7));
      return { lost: idsIn([last], acknowledged), journal: true };
    },
  },
  {
    name: 'random garbage after the last record',
    damage(dataDir, rng) {
      appendFileSync(readNewestJournal(dataDir).path, rng.bytes(rng.int(1, 4096)));
      return { lost: [], journal: true };
    },
  },
  {
    name: 'record header promising more than follows',
    damage(dataDir) {
      appendFileSync(readNewestJournal(dataDir).path, Buffer.from([0x00, 0x00, 0x10, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x7b, 0x22]));
      return { lost: [], journal: true };
    },
  },
  {
    name: 'flipped bytes in the last record',
    fast: true,
    damage(dataDir, rng, acknowledged) {
      const { path, records } = readNewestJournal(dataDir);
      const last = records.at(-1)!;
      const bytes = readFileSync(path);
      for (let i = 0; i < rng.int(1, 3); i++) {
        const at = last.offset + 8 + rng.int(0, last.length - 9);
        bytes[at] = bytes[at]! ^ (1 << rng.int(0, 7));
      }
      writeFileSync(path, bytes);
      return { lost: idsIn([last], acknowledged), journal: true };
    },
  },
  {
    name: 'half-written lore.sqlite.tmp (prefix of a snapshot)',
    fast: true,
    snapshotFirst: true,
    damage(dataDir, rng) {
      const image = readFileSync(join(dataDir, 'lore.sqlite'));
      writeFileSync(join(dataDir, 'lore.sqlite.tmp'), image.subarray(0, rng.int(1, image.length - 1)));
      return { lost: [], journal: false };
    },
  },
  {
    name: 'garbage lore.sqlite.tmp left behind',
    snapshotFirst: true,
    damage(dataDir, rng) {
      writeFileSync(join(dataDir, 'lore.sqlite.tmp'), rng.bytes(rng.int(1, 64 * 1024)));
      return { lost: [], journal: false };
    },
  },
  {
    name: 'changed pages half written into lore.sqlite, the pages file beside it',
    fast: true,
    pagesSnapshot: true,
    damage(dataDir, rng, _acknowledged, before) {
      const file = join(dataDir, 'lore.sqlite');
      const after = readFileSync(file);
      const changes = changedPages(before.snapshot!, after);
      if (changes.pages.length === 0) throw new Error('the second snapshot changed no page');
      // The old snapshot with some of the new pages written into it, as a crash in the middle leaves it.
      const half = Buffer.from(before.snapshot!);
      changes.pages.forEach((page, i) => {
        if (rng.int(0, 1) === 1 && page * PAGE_BYTES < half.length) changes.data.copy(half, page * PAGE_BYTES, i * PAGE_BYTES, (i + 1) * PAGE_BYTES);
      });
      writeFileSync(file, half);
      writeFileSync(join(dataDir, 'lore.sqlite.pages'), Buffer.concat([encodeSnapshotPagesHeader(changes.pages, changes.fileBytes), changes.data]));
      return { lost: [], journal: false };
    },
  },
  {
    name: 'garbage lore.sqlite.pages.tmp left behind (changed pages half written)',
    snapshotFirst: true,
    damage(dataDir, rng) {
      writeFileSync(join(dataDir, 'lore.sqlite.pages.tmp'), rng.bytes(rng.int(1, 64 * 1024)));
      return { lost: [], journal: false };
    },
  },
  {
    name: 'snapshot renamed, old journal not yet deleted',
    journalReplayedTwice: true,
    damage() {
      return { lost: [], journal: false };
    },
  },
];

async function runDamageCase(spec: DamageCase, rng: Rng): Promise<DamageCaseResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-suite-damage-'));
  const running: ServiceProcess[] = [];
  const start = async () => {
    const service = await startService(dataDir);
    running.push(service);
    return service;
  };
  const result: DamageCaseResult = { name: spec.name, started: false, expected: 0, found: 0, loggedDrop: null, writableAfter: false, ok: false, detail: '' };
  try {
    let service = await start();
    const { basic } = await createStoreAndKey(service, STORE);
    const acknowledged = await writeStatements(service, basic, rng, rng.int(5, 15));
    const previous: { snapshot: Buffer | null } = { snapshot: null };
    if (spec.pagesSnapshot) {
      if ((await stopGracefully(service)) !== 0) throw new Error('graceful stop failed');
      previous.snapshot = readFileSync(join(dataDir, 'lore.sqlite'));
      service = await start();
      acknowledged.push(...(await writeStatements(service, basic, rng, rng.int(3, 10))));
      if ((await stopGracefully(service)) !== 0) throw new Error('graceful stop failed');
    } else if (spec.snapshotFirst || spec.journalReplayedTwice) {
      let saved: { name: string; bytes: Buffer } | null = null;
      if (spec.journalReplayedTwice) {
        const { path } = readNewestJournal(dataDir);
        saved = { name: path, bytes: readFileSync(path) };
      }
      if ((await stopGracefully(service)) !== 0) throw new Error('graceful stop failed');
      if (saved) {
        writeFileSync(saved.name, saved.bytes);
      } else {
        service = await start();
        acknowledged.push(...(await writeStatements(service, basic, rng, rng.int(3, 10))));
        await killHard(service);
      }
    } else {
      await killHard(service);
    }
    const { lost, journal } = spec.damage(dataDir, rng, acknowledged, previous);
    const before = journal ? statSync(readNewestJournal(dataDir).path).size : 0;
    try {
      service = await start();
    } catch (error) {
      result.detail = (error as Error).message.slice(0, 500);
      return result;
    }
    result.started = true;
    const kept = acknowledged.filter((id) => !lost.includes(id));
    result.expected = kept.length;
    const listed = await allStatementIds(service.url, basic);
    result.found = kept.filter((id) => listed.has(id)).length;
    const extra = [...listed].filter((id) => !acknowledged.includes(id));
    if (journal) result.loggedDrop = /dropped \d+ bytes/.test(service.output());
    const after = await fetch(`${service.url}/${STORE}/xAPI/statements`, { method: 'POST', headers: xapiHeaders(basic), body: JSON.stringify(statement(uuidFrom(rng), 0)) });
    result.writableAfter = after.status === 200;
    const tmpLeft = readdirSync(dataDir).some((name) => ['lore.sqlite.tmp', 'lore.sqlite.pages.tmp', 'lore.sqlite.pages'].includes(name));
    result.ok = result.found === result.expected && extra.length === 0 && result.loggedDrop !== false && result.writableAfter && !tmpLeft;
    result.detail = [
      lost.length > 0 ? `${lost.length} acknowledged statement(s) in the damaged record` : '',
      journal ? `journal ${before} bytes before start` : '',
      extra.length > 0 ? `${extra.length} statements that were never written` : '',
      tmpLeft ? 'a snapshot temp or pages file still there' : '',
    ]
      .filter(Boolean)
      .join('; ');
    return result;
  } catch (error) {
    result.detail = `suite error: ${(error as Error).message.slice(0, 500)}`;
    return result;
  } finally {
    for (const service of running) await killHard(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runCrashSuite(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => {});
  const rng = createRng(options.seed);
  const { ledger, survived, last, snapshots } = await killRounds(options, rng, log);
  const damage: DamageCaseResult[] = [];
  if (options.damageCases !== 'none') {
    const cases = options.damageCases === 'all' ? DAMAGE_CASES : DAMAGE_CASES.filter((spec) => spec.fast);
    for (const spec of cases) {
      const result = await runDamageCase(spec, rng.fork());
      log(`damage: ${result.name}: ${result.ok ? 'ok' : 'FAILED'} (${result.found}/${result.expected} kept${result.detail ? `; ${result.detail}` : ''})`);
      damage.push(result);
    }
  }
  const lines: SummaryLine[] = [
    { label: 'seed', value: options.seed },
    { label: 'kill -9 rounds survived', value: `${survived} / ${options.rounds}`, ok: survived === options.rounds },
    { label: 'snapshots written between kills', value: options.snapshotThresholdBytes ? `${snapshots} (threshold ${options.snapshotThresholdBytes} bytes)` : 'default threshold' },
    { label: 'statements acknowledged vs found', value: `${ledger.statements.size} / ${last.statementsFound}`, ok: ledger.statements.size === last.statementsFound },
    { label: 'documents acknowledged vs found', value: `${ledger.documents.size} / ${last.documentsFound}`, ok: ledger.documents.size === last.documentsFound },
    { label: 'bookmarks behind an acknowledged value', value: last.bookmarksBehind, ok: last.bookmarksBehind === 0 },
    { label: 'answers >= 500 while writing', value: ledger.serverErrors, ok: ledger.serverErrors === 0 },
    { label: 'missing or wrong', value: last.missing.length === 0 ? 'none' : last.missing.slice(0, 5).join('; '), ok: last.missing.length === 0 },
    ...damage.map((d) => ({ label: `damage: ${d.name}`, value: `${d.found}/${d.expected} kept${d.loggedDrop ? ', drop logged' : ''}${d.detail ? ` (${d.detail})` : ''}`, ok: d.ok })),
  ];
  const summary = formatSummary('Crash suite', lines);
  return {
    seed: options.seed,
    rounds: options.rounds,
    roundsSurvived: survived,
    statementsAcknowledged: ledger.statements.size,
    statementsFound: last.statementsFound,
    documentsAcknowledged: ledger.documents.size,
    documentsFound: last.documentsFound,
    bookmarksBehind: last.bookmarksBehind,
    serverErrors: ledger.serverErrors,
    missing: last.missing,
    damage,
    ok: lines.every((line) => line.ok !== false),
    summary,
  };
}
