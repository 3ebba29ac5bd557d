/**
 * The one-round-trip write of statements (storage/postgres/statement-fast-writes.ts) with two
 * processes on one database: what a process remembers of the kept Activity definitions and
 * Explorer names is only a hint, checked by the database, so another process's change is never
 * lost or overwritten with a stale value; and a write through it answers as the general path does.
 */
import { describe, expect, it } from 'vitest';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { postgresPerTest } from '../postgres/per-test';
import type { TestDatabase } from '../postgres/test-database';
import { ALICE, COURSE, makeStatement, makeStore } from './rows';

const postgres = postgresPerTest();

async function twoProcesses(): Promise<{ db: TestDatabase; a: PostgresStorage; b: PostgresStorage }> {
  const db = await postgres.database();
  return { db, a: await postgres.open(db, { poolSize: 4 }), b: await postgres.open(db, { poolSize: 4 }) };
}

const learnerName = async (storage: PostgresStorage, storeId: string) =>
  (await storage.lookupNames(storeId, { kind: 'agent', valuePrefix: ALICE, limit: 5 })).map((n) => n.name);

describe('PostgreSQL: statements written in one round trip', () => {
  it("keeps the newest learner name when another process changed it since this one last saw it", async () => {
    const { a, b } = await twoProcesses();
    const store = makeStore();
    await a.insertStore(store);
    await a.insertStatements(store.id, [makeStatement({ actor: ALICE, actorName: 'Ada Lovelace' })]);
    // a remembers "Ada Lovelace"; b renames her.
    await a.insertStatements(store.id, [makeStatement({ actor: ALICE, actorName: 'Ada Lovelace' })]);
    await b.insertStatements(store.id, [makeStatement({ actor: ALICE, actorName: 'Ada King' })]);
    expect(await learnerName(a, store.id)).toEqual(['Ada King']);
    // a's next statement names her as a remembers: the newest name must win, not a's memory.
    await a.insertStatements(store.id, [makeStatement({ actor: ALICE, actorName: 'Ada Lovelace' })]);
    expect(await learnerName(b, store.id)).toEqual(['Ada Lovelace']);
  });

  it("merges over another process's change of an Activity definition, never over what this one remembered", async () => {
    const { a, b } = await twoProcesses();
    const store = makeStore();
    await a.insertStore(store);
    await a.insertStatements(store.id, [makeStatement({ activity: COURSE, activityName: { 'en-US': 'Safety' } })]);
    await a.insertStatements(store.id, [makeStatement({ activity: COURSE, activityName: { 'en-US': 'Safety' } })]);
    await b.insertStatements(store.id, [makeStatement({ activity: COURSE, activityName: { 'en-US': 'Safety first', 'fr-FR': 'Sécurité' } })]);
    // Unchanged by what a remembers, changed by what is kept: merged over the kept definition.
    await a.insertStatements(store.id, [makeStatement({ activity: COURSE, activityName: { 'en-US': 'Safety' } })]);
    expect((await b.findActivity(store.id, COURSE))?.definition).toEqual({ name: { 'en-US': 'Safety', 'fr-FR': 'Sécurité' } });
  });

  it('answers repeats and conflicts as the general path does, and stores each new statement once', async () => {
    const { a, b } = await twoProcesses();
    const store = makeStore();
    await a.insertStore(store);
    const first = makeStatement({ actor: ALICE, actorName: 'Ada' });
    const second = makeStatement({ actor: ALICE, actorName: 'Ada' });
    expect(await a.insertStatements(store.id, [first])).toEqual({ ok: true, inserted: [first.statementId], unchanged: [] });
    expect(await b.insertStatements(store.id, [first, second])).toEqual({ ok: true, inserted: [second.statementId], unchanged: [first.statementId] });
    const other = makeStatement({ id: second.statementId, actor: ALICE, variant: 'other' });
    expect(await a.insertStatements(store.id, [other])).toEqual({ ok: false, conflict: { index: 0, statementId: second.statementId } });
    // Many new learners at once from both processes: each statement once, every name kept.
    const batch = (n: number) => Array.from({ length: 20 }, (_, i) => makeStatement({ actor: `mbox:mailto:l${(i + n) % 30}@example.com`, actorName: `Learner ${(i + n) % 30}` }));
    const results = await Promise.all([a.insertStatements(store.id, batch(0)), b.insertStatements(store.id, batch(10)), a.insertStatements(store.id, batch(5))]);
    expect(results.every((r) => r.ok)).toBe(true);
    const page = await a.queryStatements(store.id, { limit: 100 });
    expect(page.statements).toHaveLength(62);
    expect(await a.lookupNames(store.id, { kind: 'agent', words: ['learner'], limit: 50 })).toHaveLength(30);
  });

  it("keeps each statement of a batch as its text was, whatever the width of its characters", async () => {
    const { a } = await twoProcesses();
    const store = makeStore();
    await a.insertStore(store);
    // Sent as one run of UTF-8 with where each statement ends: an end counted in characters, not
    // bytes, would cut every statement after the first one that is not ASCII.
    const names = ['Ada', 'Zoë "quoted" \\ and a \\"', '安全第一のコース', 'emoji 🎓🧪 in the middle', 'é'.repeat(300), 'plain again'];
    const rows = names.map((name, i) => makeStatement({ activity: `${COURSE}/${i}`, activityName: { 'en-US': name } }));
    expect(await a.insertStatements(store.id, rows)).toEqual({ ok: true, inserted: rows.map((row) => row.statementId), unchanged: [] });
    const page = await a.queryStatements(store.id, { limit: 10, ascending: true });
    expect(page.statements.map((s) => s.statementJson)).toEqual(rows.map((row) => JSON.stringify(row.statement)));
    expect((await a.findActivity(store.id, `${COURSE}/3`))?.definition).toEqual({ name: { 'en-US': names[3] } });
  });
});
