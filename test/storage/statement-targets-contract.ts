/**
 * The Storage contract for statements that target other statements (StatementRow.targetStatementId;
 * xAPI §2.1.3 "Filter Conditions for StatementRefs") and for raw attachments, run by
 * describeStorageContract for every implementation.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StatementQuery, StatementRow } from '../../src-server/storage/storage';
import { ALICE, BOB, COMPLETED, COURSE, makeStatement, makeStore } from './rows';
import type { StatementSpec } from './rows';
import type { ContractContext } from './storage-contract';

const ATTENDED = 'http://adlnet.gov/expapi/verbs/attended';

/** A statement whose object is a StatementRef to `target` (voiding when spec.voids is set instead). */
function targeting(target: string, spec: StatementSpec = {}): StatementRow {
  const row = makeStatement({ actor: BOB, verb: ATTENDED, ...spec });
  const statement = { ...row.statement, object: { objectType: 'StatementRef', id: target } };
  return { ...row, statement, targetStatementId: target, terms: row.terms.filter((term) => term.kind === 'agent') };
}

export function describeStatementTargetsContract(ctx: ContractContext): void {
  describe('statements that target statements', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;
    const insert = async (...rows: StatementRow[]) => {
      const result = await s().insertStatements(storeId(), rows);
      if (!result.ok) throw new Error('unexpected conflict');
      return rows.map((row) => row.statementId);
    };
    const ids = async (query: Partial<StatementQuery>) =>
      (await s().queryStatements(storeId(), { limit: 100, ...query })).statements.map((row) => row.statementId);

    it('matches a targeting statement through its target, for agent, verb, activity and registration', async () => {
      const registration = randomUUID();
      const [target] = await insert(makeStatement({ actor: ALICE, verb: COMPLETED, activity: COURSE, registration }));
      const [referring] = await insert(targeting(target!));
      for (const query of [{ agent: ALICE }, { verbId: COMPLETED }, { activityId: COURSE }, { registration }]) {
        expect(await ids(query)).toEqual([referring, target]);
      }
      expect(await ids({ agent: BOB })).toEqual([referring]);
      expect(await ids({ agent: ALICE, verbId: ATTENDED })).toEqual([]);
    });

    it('with keyId, returns a targeting statement only when it is the key\'s own, whoever sent its target', async () => {
      const [target] = await insert(makeStatement({ actor: ALICE, keyId: 'k2' }));
      const [mine] = await insert(targeting(target!, { keyId: 'k1' }));
      await insert(targeting(target!, { keyId: 'k2' }));
      expect(await ids({ agent: ALICE, keyId: 'k1' })).toEqual([mine]);
    });

    it('follows chains of targets, and stops at cycles', async () => {
      const [c] = await insert(makeStatement({ actor: ALICE }));
      const [b] = await insert(targeting(c!));
      const [a] = await insert(targeting(b!));
      expect(await ids({ agent: ALICE, ascending: true })).toEqual([c, b, a]);
      const x = randomUUID();
      const y = randomUUID();
      await insert(targeting(y, { id: x }), targeting(x, { id: y }));
      expect(await ids({ agent: ALICE })).toEqual([a, b, c]);
    });

    it('counts a voided target, but never returns a voided statement', async () => {
      const [target] = await insert(makeStatement({ actor: ALICE }));
      const voiding = { ...targeting(target!), voidsStatementId: target!, verbId: 'http://adlnet.gov/expapi/verbs/voided' };
      await insert(voiding);
      const [referring] = await insert(targeting(target!));
      expect(await ids({ agent: ALICE })).toEqual([referring, voiding.statementId]);
    });

    it('applies seq bounds and limit to the targeting statement, and pages across both halves', async () => {
      const [target] = await insert(makeStatement({ actor: ALICE }));
      const [referring] = await insert(targeting(target!));
      const [direct] = await insert(makeStatement({ actor: ALICE }));
      const first = await s().queryStatements(storeId(), { agent: ALICE, limit: 2 });
      expect(first.statements.map((row) => row.statementId)).toEqual([direct, referring]);
      const rest = await s().queryStatements(storeId(), { agent: ALICE, limit: 2, afterSeq: first.nextAfterSeq! });
      expect(rest.statements.map((row) => row.statementId)).toEqual([target]);
      expect(rest.nextAfterSeq).toBeNull();
      const referringSeq = first.statements[1]!.seq;
      expect(await ids({ agent: ALICE, maxSeq: referringSeq - 1 })).toEqual([target]);
    });

    it('keeps targets across reopen, and keeps them per Store', async () => {
      const [target] = await insert(makeStatement({ actor: ALICE }));
      const [referring] = await insert(targeting(target!));
      await ctx.reopen();
      expect(await ids({ agent: ALICE })).toEqual([referring, target]);
      const other = makeStore();
      await s().insertStore(other);
      await s().insertStatements(other.id, [targeting(target!)]);
      expect(await ids({ agent: ALICE })).toEqual([referring, target]);
    });
  });

  describe('raw attachments', () => {
    it('finds the attachments of a Store by sha2, each once, and nothing of another Store', async () => {
      const content = new TextEncoder().encode('certificate');
      const attachments = [{ sha2: 'ab'.repeat(32), contentType: 'text/plain', content }];
      await ctx.storage().insertStatements(ctx.store().id, [makeStatement({ attachments }), makeStatement({ attachments })]);
      await ctx.reopen();
      const found = await ctx.storage().findAttachments(ctx.store().id, ['ab'.repeat(32), 'ab'.repeat(32), 'cd'.repeat(32)]);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ sha2: 'ab'.repeat(32), contentType: 'text/plain' });
      expect(Buffer.from(found[0]!.content).toString()).toBe('certificate');
      const other = makeStore();
      await ctx.storage().insertStore(other);
      expect(await ctx.storage().findAttachments(other.id, ['ab'.repeat(32)])).toEqual([]);
    });
  });
}
