/**
 * Group commit on PostgreSQL (storage/postgres/statement-write-groups.ts): requests writing to one
 * Store while its writes are under way go together in one call, each answered for its own
 * statements; a group the database refuses is written request by request, each answered as it
 * would have been alone.
 */
import { describe, expect, it, vi } from 'vitest';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import type { StatementRow } from '../../src-server/storage/storage';
import { postgresPerTest } from '../postgres/per-test';
import { ALICE, makeStatement, makeStore } from './rows';

const postgres = postgresPerTest();

async function open(): Promise<{ storage: PostgresStorage; calls: () => number }> {
  const storage = await postgres.openFresh({ poolSize: 4, writeGroups: { callsInFlight: 1 } });
  // Counts the calls of the insert function that reach the real database.
  const statement = vi.spyOn(storage.db, 'statement');
  const calls = () => statement.mock.calls.filter(([text]) => text.includes('lore_insert_statements')).length;
  return { storage, calls };
}

const learner = (i: number) => makeStatement({ actor: `mbox:mailto:learner${i}@example.com`, actorName: `Learner ${i}` });

describe('PostgreSQL: concurrent writes to one Store in one call', () => {
  it('writes thirty single-statement requests in a few calls, answers each for its own statement, in the order they came', async () => {
    const { storage, calls } = await open();
    const store = makeStore();
    await storage.insertStore(store);
    const rows = Array.from({ length: 30 }, (_, i) => learner(i));
    const answers = await Promise.all(rows.map((row) => storage.insertStatements(store.id, [row])));

    expect(answers).toEqual(rows.map((row) => ({ ok: true, inserted: [row.statementId], unchanged: [] })));
    expect(calls()).toBeLessThan(6);
    const page = await storage.queryStatements(store.id, { limit: 100 });
    expect(page.statements.map((s) => s.statementId)).toEqual(rows.map((row) => row.statementId).reverse());
    expect(await storage.lookupNames(store.id, { kind: 'agent', words: ['learner'], limit: 50 })).toHaveLength(30);
    expect((await storage.stats(store.id)).statements).toBe(30);
  });

  it('answers a request in a refused group as it would be answered alone, and writes the others', async () => {
    const { storage, calls } = await open();
    const store = makeStore();
    await storage.insertStore(store);
    const kept = makeStatement({ actor: ALICE, actorName: 'Ada' });
    await storage.insertStatements(store.id, [kept]);

    const first = learner(1);
    const fresh = [learner(2), learner(3), learner(4)];
    const conflicting = makeStatement({ id: kept.statementId, actor: ALICE, variant: 'other' });
    const sameIdTwice = learner(5);
    const requests: StatementRow[][] = [[first], [fresh[0]!], [kept], [fresh[1]!], [conflicting], [sameIdTwice], [sameIdTwice], [fresh[2]!]];
    const before = calls();
    const answers = await Promise.all(requests.map((rows) => storage.insertStatements(store.id, rows)));

    expect(answers[0]).toEqual({ ok: true, inserted: [first.statementId], unchanged: [] });
    expect(answers[1]).toEqual({ ok: true, inserted: [fresh[0]!.statementId], unchanged: [] });
    expect(answers[2]).toEqual({ ok: true, inserted: [], unchanged: [kept.statementId] });
    expect(answers[3]).toEqual({ ok: true, inserted: [fresh[1]!.statementId], unchanged: [] });
    expect(answers[4]).toEqual({ ok: false, conflict: { index: 0, statementId: kept.statementId } });
    // The same statement in two requests: stored once, the second finds it unchanged.
    expect([answers[5], answers[6]]).toContainEqual({ ok: true, inserted: [sameIdTwice.statementId], unchanged: [] });
    expect([answers[5], answers[6]]).toContainEqual({ ok: true, inserted: [], unchanged: [sameIdTwice.statementId] });
    expect(answers[7]).toEqual({ ok: true, inserted: [fresh[2]!.statementId], unchanged: [] });
    // The first alone, then the refused group of the other seven, then each of those alone.
    expect(calls() - before).toBeGreaterThan(2);
    const stored = (await storage.queryStatements(store.id, { limit: 100 })).statements.map((s) => s.statementId);
    expect([...stored].sort()).toEqual([kept, first, ...fresh, sameIdTwice].map((row) => row.statementId).sort());
    expect((await storage.findStatement(store.id, kept.statementId))?.statement).toEqual(kept.statement);
  });
});
