/**
 * The Statement Explorer's search by name on every Storage implementation: the names each Store
 * keeps of its learners, verbs and Activities (lookupNames), and the search by the several values
 * a name can stand for (searchExplorer with lists). Run by describeStorageContract.
 */
import { describe, expect, it } from 'vitest';
import type { ExplorerQuery, NamedValue, NameQuery, StatementRow, Storage } from '../../src-server/storage/storage';
import { ATTEMPTED, COMPLETED, makeRejection, makeStatement, makeStore } from './rows';
import type { StatementSpec } from './rows';
import type { ContractContext } from './storage-contract';

const ADA = 'mbox:mailto:ada@example.com';
const ADAM = 'mbox:mailto:adam@example.com';
const GRACE = 'mbox:mailto:grace@example.com';
const ZOE = 'mbox:mailto:zoe@example.com';
const SAFETY_4 = 'http://example.com/safety/module-4';
const SAFETY_5 = 'http://example.com/safety/module-5';
const FINANCE_4 = 'http://example.com/finance/module-4';

/** Statements with names of every kind: what a rebuild of the names from older data must find again. */
export function namedStatements(): StatementRow[] {
  return [
    makeStatement({ actor: ADA, actorName: 'Ada Lovelace', verb: COMPLETED, verbDisplay: { 'en-US': 'finished' } }),
    makeStatement({ actor: ADA, actorName: 'Ada King', verb: COMPLETED, verbDisplay: { 'en-US': 'completed' } }),
    makeStatement({ accountName: 'u19', verb: ATTEMPTED, activity: SAFETY_4, activityName: { 'en-US': 'Module 4' } }),
  ];
}

/** The lookups of namedStatements' names, each answer as it is (its names: Ada King, u19, completed, Module 4). */
export async function namedStatementLookups(storage: Storage, storeId: string): Promise<NamedValue[][]> {
  return [
    await storage.lookupNames(storeId, { kind: 'agent', words: ['ada'], limit: 10 }),
    await storage.lookupNames(storeId, { kind: 'agent', words: ['u19'], limit: 10 }),
    await storage.lookupNames(storeId, { kind: 'verb', words: ['c'], limit: 10 }),
    await storage.lookupNames(storeId, { kind: 'activity', words: ['module', '4'], limit: 10 }),
  ];
}

export function describeExplorerNamesContract(ctx: ContractContext): void {
  describe('the Explorer by name', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;

    async function insert(...specs: StatementSpec[]): Promise<string[]> {
      const result = await s().insertStatements(storeId(), specs.map((spec) => makeStatement(spec)));
      if (!result.ok) throw new Error('unexpected conflict');
      return result.inserted;
    }
    const lookup = (query: NameQuery, ofStore = storeId()) => s().lookupNames(ofStore, query);
    const words = (kind: NameQuery['kind'], ...typed: string[]) => lookup({ kind, words: typed, limit: 10 });
    const search = async (q: Omit<ExplorerQuery, 'limit'>, limit = 50) =>
      (await s().searchExplorer(storeId(), { ...q, limit })).records.map((r) => r.statementId);

    async function people(): Promise<void> {
      await insert(
        { actor: ADA, actorName: 'Ada Lovelace' },
        { actor: ADAM, actorName: 'Adam Smith' },
        { actor: GRACE, actorName: 'Grace Hopper' },
        { actor: ZOE, actorName: 'Zoë Ölander' },
      );
    }

    it('finds learners by the words of their names, each typed word the start of a word, in order', async () => {
      await people();
      expect(await words('agent', 'ada')).toEqual([
        { value: ADA, name: 'Ada Lovelace' },
        { value: ADAM, name: 'Adam Smith' },
      ]);
      expect(await words('agent', 'ada', 'lovel')).toEqual([{ value: ADA, name: 'Ada Lovelace' }]);
      expect(await words('agent', 'lovelace')).toEqual([{ value: ADA, name: 'Ada Lovelace' }]);
      // Not inside a word, not out of order.
      expect(await words('agent', 'ace')).toEqual([]);
      expect(await words('agent', 'lovelace', 'ada')).toEqual([]);
      // The caller folds case and accents (explorer-names.ts, searchWords): the kept words are folded too.
      expect(await words('agent', 'zoe', 'ol')).toEqual([{ value: ZOE, name: 'Zoë Ölander' }]);
    });

    it('matches the values of the same names without their names or order, up to the limit', async () => {
      await people();
      const matched = async (...typed: string[]) => (await s().matchNames(storeId(), { kind: 'agent', words: typed, limit: 10 })).sort();
      expect(await matched('ada')).toEqual([ADA, ADAM]);
      expect(await matched('ada', 'lovel')).toEqual([ADA]);
      expect(await matched('ace')).toEqual([]);
      expect(await s().matchNames(storeId(), { kind: 'agent', words: ['ada'], limit: 1 })).toHaveLength(1);
      expect(await s().matchNames('no-such-store', { kind: 'agent', words: ['ada'], limit: 10 })).toEqual([]);
    });

    it('puts the names that start with the words first, then orders by name, up to the limit', async () => {
      await insert(
        { actor: 'mbox:mailto:b@example.com', actorName: 'Bob Adams' },
        { actor: ADAM, actorName: 'Adam Smith' },
        { actor: ADA, actorName: 'Ada Lovelace' },
      );
      expect((await words('agent', 'ada')).map((n) => n.name)).toEqual(['Ada Lovelace', 'Adam Smith', 'Bob Adams']);
      expect((await lookup({ kind: 'agent', words: ['ada'], limit: 2 })).map((n) => n.name)).toEqual(['Ada Lovelace', 'Adam Smith']);
    });

    it('keeps the newest name of a learner and forgets the words of the old one', async () => {
      await insert({ actor: ADA, actorName: 'Ada Lovelace' });
      await insert({ actor: ADA, actorName: 'Ada King' }, { actor: ADA });
      expect(await words('agent', 'lovelace')).toEqual([]);
      expect(await words('agent', 'king')).toEqual([{ value: ADA, name: 'Ada King' }]);
      // Within one batch too, the later statement's name wins.
      await insert({ actor: GRACE, actorName: 'Grace Murray' }, { actor: GRACE, actorName: 'Grace Hopper' });
      expect(await words('agent', 'grace')).toEqual([{ value: GRACE, name: 'Grace Hopper' }]);
    });

    it('finds a learner known by an account by its account name', async () => {
      await insert({ accountName: 'u1901' }, { accountName: 'jdoe', actorName: 'Jane Doe' });
      expect(await words('agent', 'u19')).toEqual([{ value: 'account:https://lms.example.com|u1901', name: 'u1901' }]);
      expect(await words('agent', 'jdoe')).toEqual([{ value: 'account:https://lms.example.com|jdoe', name: 'Jane Doe' }]);
    });

    it('finds verbs by their newest display, in any of its languages, and Activities by their kept name', async () => {
      await insert(
        { verb: COMPLETED, verbDisplay: { 'en-US': 'finished' } },
        { verb: COMPLETED, verbDisplay: { 'fr-FR': 'terminé', 'en-US': 'completed' } },
        { verb: ATTEMPTED, verbDisplay: { 'en-US': 'attempted' } },
        { activity: SAFETY_4, activityName: { 'en-US': 'Safety 3, module 4' } },
        { activity: FINANCE_4, activityName: { 'en-US': 'Finance, module 4', de: 'Finanzen, Modul 4' } },
      );
      expect(await words('verb', 'completed')).toEqual([{ value: COMPLETED, name: 'completed' }]);
      expect(await words('verb', 'termine')).toEqual([{ value: COMPLETED, name: 'completed' }]);
      expect(await words('verb', 'finished')).toEqual([]);
      expect((await words('activity', 'module', '4')).map((n) => n.value)).toEqual([FINANCE_4, SAFETY_4]);
      // Only the last word typed may be cut short: "modul 4" is the German name's, not "module 4".
      expect(await words('activity', 'modul', '4')).toEqual([{ value: FINANCE_4, name: 'Finance, module 4' }]);
      expect(await words('activity', 'safety', '3', 'mod')).toEqual([{ value: SAFETY_4, name: 'Safety 3, module 4' }]);
      // By the start of the IRI, for what is typed as one.
      expect(await lookup({ kind: 'verb', valuePrefix: 'http://adlnet.gov/expapi/verbs/c', limit: 10 })).toEqual([{ value: COMPLETED, name: 'completed' }]);
      expect((await lookup({ kind: 'activity', valuePrefix: 'http://example.com/', limit: 10 })).map((n) => n.value)).toEqual([FINANCE_4, SAFETY_4]);
    });

    it('answers every kind of lookup as namedStatementLookups expects', async () => {
      await s().insertStatements(storeId(), namedStatements());
      const found = await namedStatementLookups(s(), storeId());
      expect(found.map((names) => names.map((n) => n.name))).toEqual([['Ada King'], ['u19'], ['completed'], ['Module 4']]);
    });

    it('keeps the names across a reopen, per Store, and empties them with the Store', async () => {
      await people();
      const other = makeStore();
      await s().insertStore(other);
      await s().insertStatements(other.id, [makeStatement({ actor: GRACE, actorName: 'Grace Brewster' })]);
      await ctx.reopen();
      expect(await words('agent', 'grace')).toEqual([{ value: GRACE, name: 'Grace Hopper' }]);
      expect(await lookup({ kind: 'agent', words: ['grace'], limit: 10 }, other.id)).toEqual([{ value: GRACE, name: 'Grace Brewster' }]);
      expect(await lookup({ kind: 'agent', words: ['grace'], limit: 10 }, 'no-such-store')).toEqual([]);
      await s().emptyStore(storeId());
      expect(await words('agent', 'ada')).toEqual([]);
      await insert({ actor: ADA, actorName: 'Ada Byron' });
      expect(await words('agent', 'ada')).toEqual([{ value: ADA, name: 'Ada Byron' }]);
      expect(await lookup({ kind: 'agent', words: ['grace'], limit: 10 }, other.id)).toHaveLength(1);
    });

    it('searches statements of any of several learners, verbs or Activities; an empty list finds nothing', async () => {
      const [ada, adam, grace] = await insert(
        { actor: ADA, verb: COMPLETED, activity: SAFETY_4 },
        { actor: ADAM, verb: ATTEMPTED, activity: SAFETY_5 },
        { actor: GRACE, verb: COMPLETED, activity: FINANCE_4 },
      );
      await s().insertRejections(storeId(), [makeRejection({ statementId: 'r-adam', agent: ADAM, verb: ATTEMPTED, activity: SAFETY_5 })]);
      expect(await search({ agent: [ADA, ADAM] })).toEqual(['r-adam', adam, ada]);
      expect(await search({ agent: [ADA, ADAM], status: 'accepted' })).toEqual([adam, ada]);
      expect(await search({ verbId: [COMPLETED, ATTEMPTED] })).toEqual(['r-adam', grace, adam, ada]);
      expect(await search({ activityId: [SAFETY_4, FINANCE_4] })).toEqual([grace, ada]);
      expect(await search({ agent: [ADA, ADAM, GRACE], verbId: COMPLETED })).toEqual([grace, ada]);
      expect(await search({ agent: [ADA, GRACE], activityId: [SAFETY_4, SAFETY_5] })).toEqual([ada]);
      expect(await search({ agent: ADAM, verbId: [COMPLETED, ATTEMPTED] })).toEqual(['r-adam', adam]);
      expect(await search({ agent: [] })).toEqual([]);
      expect(await search({ verbId: [], agent: ADA })).toEqual([]);
    });

    it('pages newest first through the statements of many values, sparse matches and all', async () => {
      // 40 learners; every seventh statement is completed: the merge has to read past windows with too few.
      const learners = Array.from({ length: 40 }, (_, i) => `mbox:mailto:l${i}@example.com`);
      const specs: StatementSpec[] = Array.from({ length: 300 }, (_, i) => ({
        actor: learners[(i * i) % 40],
        verb: i % 7 === 0 ? COMPLETED : ATTEMPTED,
        storedAt: i,
      }));
      const ids = await insert(...specs);
      const someone = learners.filter((_, i) => i % 3 !== 0);
      const expected = (predicate: (spec: StatementSpec) => boolean) =>
        ids.filter((_, i) => predicate(specs[i]!)).reverse();
      const pages = async (q: Omit<ExplorerQuery, 'limit' | 'beforeSeq'>, limit: number) => {
        const seen: string[] = [];
        let beforeSeq: number | undefined;
        for (;;) {
          const page = await s().searchExplorer(storeId(), { ...q, limit, beforeSeq });
          seen.push(...page.records.map((r) => r.statementId!));
          if (page.nextBeforeSeq === null) return seen;
          beforeSeq = page.nextBeforeSeq;
        }
      };
      const inSome = (spec: StatementSpec) => someone.includes(spec.actor!);
      expect(await pages({ agent: someone }, 7)).toEqual(expected(inSome));
      expect(await pages({ agent: someone, verbId: COMPLETED }, 4)).toEqual(expected((spec) => inSome(spec) && spec.verb === COMPLETED));
      expect(await pages({ verbId: [COMPLETED, 'http://example.com/never'] }, 5)).toEqual(expected((spec) => spec.verb === COMPLETED));
      expect(await search({ agent: someone, verbId: COMPLETED }, 3)).toEqual(expected((spec) => inSome(spec) && spec.verb === COMPLETED).slice(0, 3));
    });
  });
}
