/**
 * `npm run migrate` both ways: a data directory with every kind of row moved into PostgreSQL and
 * back into a new data directory, verified by counts and checksums, and read back through the
 * Storage interface; the audit log, the erasure ledger (a deleted Store's entry too), import jobs and
 * a forwarder with its cursor and a dead letter arrive as recorded, the seqs translated to the
 * target's. LORE_TEST_MIGRATE_STATEMENTS sets the size (default 2,000; the issue's
 * 100,000 runs the same test).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMigrateReport, migrateData, TargetNotEmptyError } from '../../src-server/storage/migrate/migrate-data';
import { summarize } from '../../src-server/storage/portable';
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { ErasureRecord } from '../../src-server/storage/erasure';
import type { ForwarderRecord } from '../../src-server/storage/forwarders';
import { newForwarderRecord } from '../../src-server/storage/forwarders';
import type { ImportJobRecord, StatementRow, Storage, StoreRecord } from '../../src-server/storage/storage';
import { statementSignature } from '../../src-server/xapi/statement-signature';
import { createTestDatabase } from '../postgres/test-database';
import type { TestDatabase } from '../postgres/test-database';
import { ALICE, BOB, COURSE, MODULE, makeApiKey, makeRejection, makeStatement, makeStore } from './rows';
import { crashCopy, removeTempDirs } from './sqljs-helpers';

const STATEMENTS = Number(process.env['LORE_TEST_MIGRATE_STATEMENTS'] ?? 2_000);
const REGISTRATION = '6f1c2a4e-0b7d-4c1e-9a3f-2d5e8b7c6a10';

const dirs: string[] = [];
let database: TestDatabase;
let sourceDir: string;
let stores: StoreRecord[];
let erasures: ErasureRecord[];
let erased: number;
let jobs: ImportJobRecord[];
let forwarder: ForwarderRecord;
/** The statements at the forwarder's cursor and at its dead letter's ends. */
let atCursor: string;
let letterEnds: [string, string];
/** A statement of the first Store written without its signature. */
let unsigned: StatementRow;

function dir(): string {
  const created = mkdtempSync(join(tmpdir(), 'lore-migrate-'));
  dirs.push(created);
  return created;
}

/** Statement `n` of a Store: every shape the storage keeps something different for. */
function statementNumber(n: number, previousId: string | null): StatementRow {
  if (previousId !== null && n % 97 === 0) {
    // Voids the statement before it.
    return { ...makeStatement({ voids: previousId, storedAt: n }), targetStatementId: previousId };
  }
  const row = makeStatement({
    actor: n % 3 === 0 ? ALICE : `mbox:mailto:learner${n % 50}@example.com`,
    activity: n % 4 === 0 ? COURSE : `http://example.com/activity/${n % 200}`,
    registration: n % 10 === 0 ? REGISTRATION : null,
    relatedAgents: n % 5 === 0 ? [BOB] : [],
    relatedActivities: n % 6 === 0 ? [MODULE] : [],
    storedAt: n,
  });
  if (n % 11 === 0) row.warnings = [{ field: 'timestamp', message: 'no time zone: read as UTC' }];
  if (n % 7 === 0) row.lrsAdded = ['id', 'stored', 'authority'];
  if (n % 13 === 0) row.received = { ...row.statement, timestamp: '2024-05-01T10:00:00' };
  // The LRS made the id: the signature is left to be computed (StatementRow.signature).
  if (n % 19 === 0) Object.assign(row, { signature: null, idMadeByLrs: true });
  if (n % 17 === 0) row.activityDefinitions = [{ activityId: COURSE, definition: { name: { 'en-US': `Course ${n}` }, extensions: { [`http://example.com/ext/${n % 3}`]: n } } }];
  if (n % 500 === 1) row.attachments = [{ sha2: `sha2-${n}`, contentType: 'text/plain', content: new TextEncoder().encode(`attachment ${n}`) }];
  if (previousId !== null && n % 89 === 0) {
    // A StatementRef to the statement before it, not voiding.
    row.targetStatementId = previousId;
    row.statement = { ...row.statement, object: { objectType: 'StatementRef', id: previousId } };
  }
  return row;
}

beforeAll(async () => {
  database = await createTestDatabase();
  sourceDir = dir();
  const source = await openSqljsStorage({ dataDir: sourceDir });
  stores = [makeStore(), makeStore({ environment: 'live', limits: { maxBatch: 10 } })];
  for (const [s, store] of stores.entries()) {
    await source.insertStore(store);
    await source.insertApiKey(makeApiKey(store.id));
    await source.insertApiKey(makeApiKey(store.id, { revokedAt: '2024-05-02T00:00:00.000Z', lastUsedAt: '2024-05-01T12:00:00.000Z' }));
    const count = s === 0 ? STATEMENTS : Math.ceil(STATEMENTS / 10);
    let previous: string | null = null;
    for (let start = 0; start < count; start += 500) {
      const rows: StatementRow[] = [];
      for (let n = start; n < Math.min(count, start + 500); n++) {
        const row = statementNumber(n + 1, previous);
        previous = row.statementId;
        if (s === 0 && row.signature === null) unsigned ??= row;
        rows.push(row);
      }
      const result = await source.insertStatements(store.id, rows);
      expect(result.ok).toBe(true);
    }
    await source.insertRejections(store.id, Array.from({ length: 30 }, (_, i) => makeRejection({ receivedAt: i, agent: i % 2 ? ALICE : null })));
    const doc = (text: string) => ({ contentType: 'application/json', content: new TextEncoder().encode(text), etag: `etag-${text.length}`, updated: '2024-05-01T10:00:00.000Z' });
    await source.upsertDocument(store.id, { kind: 'state', activityId: COURSE, agent: ALICE, registration: REGISTRATION, id: 'bookmark' }, doc('{"page":3}'), null);
    await source.upsertDocument(store.id, { kind: 'state', activityId: COURSE, agent: ALICE, registration: null, id: 'bookmark' }, doc('{"page":1}'), null);
    await source.upsertDocument(store.id, { kind: 'activityProfile', activityId: COURSE, agent: null, registration: null, id: 'profile' }, doc('{}'), null);
    await source.upsertDocument(store.id, { kind: 'agentProfile', activityId: null, agent: BOB, registration: null, id: 'prefs' }, doc('{"lang":"fr"}'), null);
    const refusal = { at: '2024-05-01T10:00:00.000Z', lastAt: '2024-05-01T10:00:01.000Z', count: 3, method: 'POST', path: '/x/xAPI/statements', status: 401, code: 'unauthorized', reason: 'wrong secret', keyId: 'lore_test_x', client: '10.0.0.1', userAgent: 'course' };
    await source.insertRefusals([{ ...refusal, storeId: store.id }, { ...refusal, storeId: null, path: '/nowhere' }]);
  }
  await seedServiceRecords(source);
  await source.close();
}, 600_000);

/** The audit log, the erasure ledger, import jobs and a forwarder with a dead letter, on the second Store. */
async function seedServiceRecords(source: Storage): Promise<void> {
  const store = stores[1]!;
  for (const [i, action] of ['store.create', 'key.create', 'forwarder.create'].entries()) {
    await source.insertAuditEntry({ at: `2024-05-0${i + 1}T09:00:00.000Z`, action, outcome: 'succeeded', store: store.slug, target: null, actor: 'admin token', actorDetail: `10.0.0.${i}`, errorCode: null, detail: { n: i } });
  }
  // Erased statements leave gaps in the source's seqs that the target's do not have.
  const { counts } = await source.eraseAgents(store.id, { keys: ['mbox:mailto:learner7@example.com'], dryRun: false, at: '2024-05-03T00:00:00.000Z' });
  erased = counts.statements;
  const gone = makeStore();
  await source.insertStore(gone);
  await source.eraseAgents(gone.id, { keys: ['mbox:mailto:someone@example.com'], dryRun: false, at: '2024-05-04T00:00:00.000Z' });
  await source.deleteStore(gone.id);
  erasures = await source.listErasures();
  const job = (n: number, state: ImportJobRecord['state']): ImportJobRecord => ({
    id: `job-${n}`,
    storeId: store.id,
    kind: 'lrs',
    state,
    endpoint: 'https://lrs.example.com/xapi/',
    key: 'key',
    secret: state === 'finished' ? null : 'secret',
    since: null,
    fileName: null,
    more: state === 'finished' ? null : '/xapi/statements?page=2',
    reached: null,
    counts: { read: 10 * n, imported: 9 * n, alreadyPresent: n, voided: 0, invalid: 0, conflicts: 0 },
    problems: [{ kind: 'invalid', statementId: 'x', message: 'no actor' }],
    error: null,
    createdAt: `2024-05-0${n}T08:00:00.000Z`,
    updatedAt: `2024-05-0${n}T08:30:00.000Z`,
    finishedAt: state === 'finished' ? `2024-05-0${n}T08:30:00.000Z` : null,
  });
  jobs = [job(1, 'finished'), job(2, 'paused')];
  for (const j of jobs) await source.putImportJob(j);
  // Seqs of the second Store in the source: after the first Store's statements and rejections.
  const read = await source.readForwardable(store.id, { afterSeq: 0, limit: 100 });
  const [from, through, cursor] = [read[49]!, read[59]!, read[99]!];
  [atCursor, letterEnds] = [cursor.statementId, [from.statementId, through.statementId]];
  const created = newForwarderRecord({ id: 'fw-1', storeId: store.id, kind: 'xapi', url: 'https://other.example.com/xAPI', username: 'user', secret: 'pass', filter: { verb: 'http://adlnet.gov/expapi/verbs/completed' }, createdAt: '2024-05-01T00:00:00.000Z', cursor: cursor.seq });
  await source.insertForwarder({ ...created, cursorStored: cursor.stored, deliveredAt: '2024-05-02T00:00:00.000Z' });
  const error = { status: 503, message: 'unavailable', at: '2024-05-02T01:00:00.000Z' };
  await source.settleForwarderBatch('fw-1', { outcome: 'dead', fromSeq: from.seq, throughSeq: through.seq, throughStored: through.stored, statementIds: read.slice(49, 60).map((r) => r.statementId), error, at: '2024-05-02T02:00:00.000Z' });
  await source.requeueDeadLetters('fw-1');
  await source.updateForwarder('fw-1', { paused: true, failingSince: '2024-05-02T03:00:00.000Z', attempts: 2, nextAttemptAt: '2024-05-02T04:00:00.000Z', lastError: { ...error, status: 500 } });
  forwarder = (await source.findForwarder('fw-1'))!;
}

/** The statement id at `seq` of the Store in `storage`. */
async function statementAt(storage: Storage, storeId: string, seq: number): Promise<string | undefined> {
  return (await storage.readForwardable(storeId, { afterSeq: seq - 1, throughSeq: seq, limit: 1 }))[0]?.statementId;
}

afterAll(async () => {
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await removeTempDirs();
});

describe('npm run migrate', () => {
  it('moves a data directory into PostgreSQL and back, verified by counts and checksums', async () => {
    const log: string[] = [];
    const there = await migrateData({ from: sourceDir, to: database.url, log: (line) => log.push(line) });
    expect(there.ok, formatMigrateReport(there)).toBe(true);
    const kinds = Object.fromEntries(there.tables.map((t) => [t.kind, t.target.rows]));
    expect(kinds).toMatchObject({ stores: 2, apiKeys: 4, statements: STATEMENTS + Math.ceil(STATEMENTS / 10) - erased, rejections: 60, documents: 8, refusals: 4 });
    expect(kinds['attachments']).toBeGreaterThan(0);
    expect(kinds['activities']).toBe(2);
    expect(kinds).toMatchObject({ audit: 3, erasures: 2, importJobs: 2, forwarders: 1, deadLetters: 1 });

    // Read through PostgreSQL as a service would.
    const pg = await openPostgresStorage({ url: database.url, poolSize: 2 });
    try {
      const store = stores[0]!;
      const all = await pg.queryStatements(store.id, { limit: 10, registration: REGISTRATION });
      expect(all.statements.length).toBeGreaterThan(0);
      const related = await pg.queryStatements(store.id, { limit: 5, agent: BOB, relatedAgents: true });
      expect(related.statements.length).toBe(5);
      const voided = await pg.searchExplorer(store.id, { status: 'voided', limit: 5 });
      expect(voided.records.length).toBeGreaterThan(0);
      const course = await pg.findActivity(store.id, COURSE);
      expect(course?.definition['name']).toBeDefined();
      expect((await pg.findAttachments(store.id, ['sha2-1']))[0]?.contentType).toBe('text/plain');
      expect((await pg.stats(store.id)).statements).toBe(STATEMENTS);
      // A statement written without its signature is compared by the one computed from it.
      const { idMadeByLrs: _made, ...resent } = { ...unsigned, signature: statementSignature(unsigned.statement) };
      expect(await pg.insertStatements(store.id, [resent])).toEqual({ ok: true, inserted: [], unchanged: [unsigned.statementId] });
      const changed = { ...resent, statement: { ...resent.statement, result: { response: 'other' } } };
      expect(await pg.insertStatements(store.id, [{ ...changed, signature: statementSignature(changed.statement) }])).toMatchObject({ ok: false });

      const audit = (await pg.listAuditEntries({ limit: 10 })).entries.reverse();
      expect(audit.map((e) => [e.at, e.action, e.actorDetail, e.detail])).toEqual([0, 1, 2].map((i) => [`2024-05-0${i + 1}T09:00:00.000Z`, audit[i]!.action, `10.0.0.${i}`, { n: i }]));
      expect(await pg.listErasures()).toEqual(erasures);
      const other = stores[1]!;
      expect((await pg.listImportJobs({ storeId: other.id })).reverse()).toEqual(jobs);
      const moved = (await pg.findForwarder('fw-1'))!;
      const { cursor: _cursor, ...kept } = forwarder;
      expect(moved.cursor).toBeLessThan(forwarder.cursor);
      expect(moved).toMatchObject(kept);
      // The cursor is the target's seq of the same statement.
      expect(await statementAt(pg, other.id, moved.cursor)).toBe(atCursor);
      const [letter] = await pg.listDeadLetters('fw-1');
      expect(letter).toMatchObject({ queued: true, error: { status: 503 } });
      expect([await statementAt(pg, other.id, letter!.fromSeq), await statementAt(pg, other.id, letter!.throughSeq)]).toEqual(letterEnds);
    } finally {
      await pg.close();
    }

    const backDir = dir();
    const back = await migrateData({ from: database.url, to: backDir });
    expect(back.ok, formatMigrateReport(back)).toBe(true);
    // The round trip holds what the source held, row for row.
    const original = await openSqljsStorage({ dataDir: sourceDir });
    const originalTables = (await summarize(original.exportRecords())).tables();
    await original.close();
    const returned = await openSqljsStorage({ dataDir: backDir });
    const returnedTables = (await summarize(returned.exportRecords())).tables();
    const { idMadeByLrs: _made, ...resent } = { ...unsigned, signature: statementSignature(unsigned.statement) };
    expect(await returned.insertStatements(stores[0]!.id, [resent])).toEqual({ ok: true, inserted: [], unchanged: [unsigned.statementId] });
    await returned.close();
    expect(returnedTables).toEqual(originalTables);
  }, 600_000);

  it('notices a row that differs after the copy', async () => {
    const copy = await createTestDatabase();
    try {
      expect((await migrateData({ from: sourceDir, to: copy.url })).ok).toBe(true);
      const pg = await openPostgresStorage({ url: copy.url, poolSize: 2 });
      try {
        const before = (await summarize(pg.exportRecords())).tables();
        await pg.db.query("UPDATE statements SET registration = 'changed' WHERE seq = (SELECT min(seq) FROM statements)");
        const after = (await summarize(pg.exportRecords())).tables();
        expect(after['statements']!.rows).toBe(before['statements']!.rows);
        expect(after['statements']!.checksum).not.toBe(before['statements']!.checksum);
        expect(after['documents']).toEqual(before['documents']);
      } finally {
        await pg.close();
      }
    } finally {
      await copy.drop();
    }
  }, 120_000);

  it('keeps erasure ledger entries as recorded through the journal (sql.js, a kill -9 after)', async () => {
    const target = await openSqljsStorage({ dataDir: dir() });
    try {
      await target.insertStore(stores[1]!);
      for (const entry of erasures) expect(await target.keepErasureRecord(entry)).toBe(true);
      expect(await target.keepErasureRecord(erasures[0]!)).toBe(false);
      const reopened = await openSqljsStorage({ dataDir: await crashCopy(target.dataDir) });
      expect(await reopened.listErasures()).toEqual(erasures);
      await reopened.close();
    } finally {
      await target.close();
    }
  });

  it('refuses a target that holds data, unless told', async () => {
    await expect(migrateData({ from: sourceDir, to: database.url })).rejects.toBeInstanceOf(TargetNotEmptyError);
  });
});
