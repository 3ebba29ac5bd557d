/**
 * `npm run migrate` both ways: a data directory with every kind of row moved into PostgreSQL and
 * back into a new data directory, verified by counts and checksums, and read back through the
 * Storage interface. LORE_TEST_MIGRATE_STATEMENTS sets the size (default 2,000; the issue's
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
import type { StatementRow, StoreRecord } from '../../src-server/storage/storage';
import { createTestDatabase } from '../postgres/test-database';
import type { TestDatabase } from '../postgres/test-database';
import { ALICE, BOB, COURSE, MODULE, makeApiKey, makeRejection, makeStatement, makeStore } from './rows';

const STATEMENTS = Number(process.env['LORE_TEST_MIGRATE_STATEMENTS'] ?? 2_000);
const REGISTRATION = '6f1c2a4e-0b7d-4c1e-9a3f-2d5e8b7c6a10';

const dirs: string[] = [];
let database: TestDatabase;
let sourceDir: string;
let stores: StoreRecord[];

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
  await source.close();
}, 600_000);

afterAll(async () => {
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('npm run migrate', () => {
  it('moves a data directory into PostgreSQL and back, verified by counts and checksums', async () => {
    const log: string[] = [];
    const there = await migrateData({ from: sourceDir, to: database.url, log: (line) => log.push(line) });
    expect(there.ok, formatMigrateReport(there)).toBe(true);
    const kinds = Object.fromEntries(there.tables.map((t) => [t.kind, t.target.rows]));
    expect(kinds).toMatchObject({ stores: 2, apiKeys: 4, statements: STATEMENTS + Math.ceil(STATEMENTS / 10), rejections: 60, documents: 8, refusals: 4 });
    expect(kinds['attachments']).toBeGreaterThan(0);
    expect(kinds['activities']).toBe(2);

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

  it('refuses a target that holds data, unless told', async () => {
    await expect(migrateData({ from: sourceDir, to: database.url })).rejects.toBeInstanceOf(TargetNotEmptyError);
  });
});
