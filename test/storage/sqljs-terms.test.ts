/** Index terms in sql.js (sqljs/terms.ts): ids per Store, and data directories with the earlier layout. */
import { afterAll, describe, expect, it } from 'vitest';
import { makeStatement, makeStore } from './rows';
import { openIn, removeTempDirs, rewriteSnapshot, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const ALICE = 'mbox:mailto:alice@example.com';
const BOB = 'mbox:mailto:bob@example.com';
const COURSE = 'http://example.com/course/1';

/** The layout before term ids: one row per statement and term, with the text. */
const TO_EARLIER_LAYOUT = `
CREATE TABLE statement_terms (
  store_num INTEGER NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  is_primary INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (store_num, kind, value, seq)
) WITHOUT ROWID;
CREATE INDEX statement_terms_primary ON statement_terms (store_num, kind, value, seq) WHERE is_primary = 1;
INSERT INTO statement_terms (store_num, kind, value, is_primary, seq)
  SELECT terms.store_num, terms.kind, terms.value, p.is_primary, p.seq FROM term_postings AS p JOIN terms ON terms.id = p.term;
DROP TABLE term_postings;
DROP TABLE terms;
`;

describe('index terms in sql.js', () => {
  it('converts a data directory written with the earlier term layout, and keeps finding by every filter', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const other = makeStore();
    await storage.insertStore(other);
    const first = makeStatement({ actor: ALICE, activity: COURSE, relatedAgents: [BOB] });
    const second = makeStatement({ actor: BOB, activity: COURSE });
    const elsewhere = makeStatement({ actor: ALICE, activity: COURSE });
    await storage.insertStatements(store.id, [first, second]);
    await storage.insertStatements(other.id, [elsewhere]);
    await storage.close();

    await rewriteSnapshot(dir, TO_EARLIER_LAYOUT);

    const reopened = await openIn(dir);
    const ids = async (storeId: string, query: Record<string, unknown>) =>
      (await reopened.queryStatements(storeId, { limit: 10, ...query })).statements.map((row) => row.statementId);
    expect(await ids(store.id, { agent: ALICE })).toEqual([first.statementId]);
    expect(await ids(store.id, { agent: BOB })).toEqual([second.statementId]);
    expect(await ids(store.id, { agent: BOB, relatedAgents: true })).toEqual([second.statementId, first.statementId]);
    expect(await ids(store.id, { activityId: COURSE })).toEqual([second.statementId, first.statementId]);
    expect(await ids(other.id, { agent: ALICE })).toEqual([elsewhere.statementId]);
    // New statements take their terms next to the converted ones.
    const third = makeStatement({ actor: ALICE, activity: COURSE });
    await reopened.insertStatements(store.id, [third]);
    expect(await ids(store.id, { agent: ALICE })).toEqual([third.statementId, first.statementId]);
    await reopened.close();
  });

  it("gives each Store its own terms, and forgets a Store's terms with its rows", async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const other = makeStore();
    await storage.insertStore(other);
    await storage.insertStatements(store.id, [makeStatement({ actor: ALICE })]);
    await storage.insertStatements(other.id, [makeStatement({ actor: ALICE })]);
    await storage.emptyStore(store.id);
    expect((await storage.queryStatements(store.id, { agent: ALICE, limit: 10 })).statements).toEqual([]);
    expect((await storage.queryStatements(other.id, { agent: ALICE, limit: 10 })).statements).toHaveLength(1);
    // The emptied Store takes the same actor again (a new term id, found by the filter).
    const again = makeStatement({ actor: ALICE });
    await storage.insertStatements(store.id, [again]);
    expect((await storage.queryStatements(store.id, { agent: ALICE, limit: 10 })).statements.map((row) => row.statementId)).toEqual([
      again.statementId,
    ]);
    await storage.close();
  });

  it('finds a stored term after a restart, right after creating a new one (the insert that found it counts no row)', async () => {
    const dir = await tempDir();
    let storage = await openIn(dir);
    const store = await withStore(storage);
    const first = makeStatement({ actor: ALICE });
    await storage.insertStatements(store.id, [first]);
    await storage.close();
    // A new process knows no term ids: BOB's is made, then ALICE's is found among the stored ones.
    storage = await openIn(dir);
    const bob = makeStatement({ actor: BOB });
    const alice = makeStatement({ actor: ALICE });
    await storage.insertStatements(store.id, [bob, alice]);
    const found = async (agent: string) => (await storage.queryStatements(store.id, { agent, limit: 10 })).statements.map((row) => row.statementId).sort();
    expect(await found(ALICE)).toEqual([first.statementId, alice.statementId].sort());
    expect(await found(BOB)).toEqual([bob.statementId]);
    await storage.close();
  });
});
