/** sql.js specifics of statement targets (sqljs/statement-targets.ts): plans, older databases, older journals. */
import { afterAll, describe, expect, it } from 'vitest';
import { targetOf, targetingStatementQuery } from '../../src-server/storage/sqljs/statement-targets';
import type { StatementQuery } from '../../src-server/storage/storage';
import { at, makeStatement } from './rows';
import { openIn, removeTempDirs, rewriteSnapshot, schemaDatabase, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

describe('statement targets in sql.js', () => {
  it('walks the targeting statements by index and looks each chain link up by id: no sort, no scan of statements', async () => {
    const sql = await schemaDatabase();
    const filters: Array<Partial<StatementQuery>> = [
      { agent: 'a' },
      { agent: 'a', relatedAgents: true, verbId: 'v' },
      { activityId: 'x', registration: 'r' },
      { verbId: 'v', since: at(1), until: at(2) },
    ];
    for (const f of filters) {
      for (const extra of [{}, { ascending: true, afterSeq: 5 }, { afterSeq: 5, maxSeq: 9 }]) {
        const q = targetingStatementQuery(1, { limit: 10, ...f, ...extra }, 11);
        const plan = sql.all(`EXPLAIN QUERY PLAN ${q.sql}`, q.params).map((row) => String(row[3]));
        expect(plan.join(' | '), q.sql).not.toMatch(/TEMP B-TREE|SCAN (g|s|m|t2|g2)\b/);
        expect(plan.some((line) => /SEARCH m USING .*statement_id=\?/.test(line)), plan.join(' | ')).toBe(true);
      }
    }
    sql.close();
  });

  it('fills the table from the statements of a database written before it existed', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const target = makeStatement({ actor: 'mbox:mailto:alice@example.com' });
    const referring = makeStatement({ actor: 'mbox:mailto:bob@example.com' });
    referring.statement = { ...referring.statement, object: { objectType: 'StatementRef', id: target.statementId.toUpperCase() } };
    referring.targetStatementId = target.statementId;
    await storage.insertStatements(store.id, [target, referring]);
    await storage.close();

    // Take the table out of the snapshot, as an older release would have written it.
    await rewriteSnapshot(dir, 'DROP TABLE statement_targets');

    const reopened = await openIn(dir);
    const page = await reopened.queryStatements(store.id, { agent: 'mbox:mailto:alice@example.com', limit: 10 });
    expect(page.statements.map((row) => row.statementId)).toEqual([referring.statementId, target.statementId]);
    await reopened.close();
  });

  it('reads the target of a journal record written before targets from its statement', () => {
    const ref = { objectType: 'StatementRef', id: 'AB7C9E2A-0000-4000-8000-000000000000' };
    expect(targetOf({ statement: { object: ref } })).toBe('ab7c9e2a-0000-4000-8000-000000000000');
    expect(targetOf({ statement: { object: { id: 'http://example.com/a' } } })).toBeNull();
    expect(targetOf({ statement: { object: ref }, targetStatementId: null })).toBeNull();
  });
});
