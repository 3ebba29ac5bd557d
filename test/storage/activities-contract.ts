/**
 * What every Storage implementation does with Activity definitions (storage.ts,
 * ActivityDefinitionRow and findActivity). Run by each implementation's test file, like
 * storage-contract.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ActivityDefinitionRow, StatementRow, Storage, StoreRecord } from '../../src-server/storage/storage';
import { at, makeStatement, makeStore } from './rows';
import type { StatementSpec } from './rows';
import type { ContractSubject } from './storage-contract';

const MEETING = 'http://example.com/meetings/42';
const QUIZ = 'http://example.com/quiz/1';

function defining(definitions: ActivityDefinitionRow[], spec: StatementSpec = {}): StatementRow {
  return { ...makeStatement(spec), activityDefinitions: definitions };
}

export function describeActivitiesContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`Storage contract, Activities: ${name}`, () => {
    let subject: ContractSubject;
    let storage: Storage;
    let store: StoreRecord;

    beforeEach(async () => {
      subject = await open();
      storage = subject.storage;
      store = makeStore();
      await storage.insertStore(store);
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    async function insert(storeId: string, ...rows: StatementRow[]): Promise<void> {
      const result = await storage.insertStatements(storeId, rows);
      if (!result.ok) throw new Error('unexpected conflict');
    }

    async function definitionOf(activityId: string, storeId = store.id) {
      return (await storage.findActivity(storeId, activityId))?.definition ?? null;
    }

    it('finds nothing for an Activity no statement defined, or in an unknown Store', async () => {
      await insert(store.id, makeStatement({ activity: MEETING }));
      expect(await storage.findActivity(store.id, MEETING)).toBeNull();
      expect(await storage.findActivity('no-such-store', MEETING)).toBeNull();
    });

    it('keeps the definition an inserted statement carries, with its stored time, across a reopen', async () => {
      const definition = { name: { 'en-US': 'example meeting' }, type: 'http://adlnet.gov/expapi/activities/meeting' };
      await insert(store.id, defining([{ activityId: MEETING, definition }], { storedAt: 5 }));
      const expected = { activityId: MEETING, definition, updated: at(5) };
      expect(await storage.findActivity(store.id, MEETING)).toEqual(expected);
      storage = await subject.reopen();
      expect(await storage.findActivity(store.id, MEETING)).toEqual(expected);
    });

    it('merges language maps and extensions key by key and replaces every other member, across batches', async () => {
      await insert(
        store.id,
        defining([
          {
            activityId: QUIZ,
            definition: {
              name: { 'en-GB': 'quiz', 'en-US': 'quiz' },
              interactionType: 'choice',
              choices: [{ id: 'a', description: { 'en-US': 'Paris' } }],
              extensions: { 'http://example.com/ext/a': { deep: 1 }, 'http://example.com/ext/b': 2 },
            },
          },
        ]),
      );
      await insert(
        store.id,
        defining([
          {
            activityId: QUIZ,
            definition: {
              name: { 'en-GB': 'Quiz', 'fr-FR': 'questionnaire' },
              choices: [{ id: 'b', description: { 'fr-FR': 'Rome' } }],
              extensions: { 'http://example.com/ext/a': { other: 2 } },
              moreInfo: 'http://example.com/quiz/1/about',
            },
          },
        ]),
      );
      const expected = {
        name: { 'en-GB': 'Quiz', 'en-US': 'quiz', 'fr-FR': 'questionnaire' },
        interactionType: 'choice',
        choices: [{ id: 'b', description: { 'fr-FR': 'Rome' } }],
        extensions: { 'http://example.com/ext/a': { other: 2 }, 'http://example.com/ext/b': 2 },
        moreInfo: 'http://example.com/quiz/1/about',
      };
      expect(await definitionOf(QUIZ)).toEqual(expected);
      storage = await subject.reopen();
      expect(await definitionOf(QUIZ)).toEqual(expected);
    });

    it('merges definitions in row order within one batch and within one statement', async () => {
      await insert(
        store.id,
        defining([
          { activityId: MEETING, definition: { name: { 'en-US': 'one' } } },
          { activityId: MEETING, definition: { name: { 'en-US': 'two', 'de-DE': 'zwei' } } },
        ]),
        defining([{ activityId: MEETING, definition: { name: { 'en-US': 'three' } } }]),
      );
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'three', 'de-DE': 'zwei' } });
    });

    it('keeps the updated time when a definition changes nothing', async () => {
      const definition = { name: { 'en-US': 'example meeting' } };
      await insert(store.id, defining([{ activityId: MEETING, definition }], { storedAt: 1 }));
      await insert(store.id, defining([{ activityId: MEETING, definition }], { storedAt: 9 }));
      expect((await storage.findActivity(store.id, MEETING))?.updated).toBe(at(1));
      await insert(store.id, defining([{ activityId: MEETING, definition: { name: { 'fr-FR': 'réunion' } } }], { storedAt: 12 }));
      expect((await storage.findActivity(store.id, MEETING))?.updated).toBe(at(12));
    });

    it('takes nothing from a row reported unchanged, nor from a batch refused as a conflict', async () => {
      const first = defining([{ activityId: MEETING, definition: { name: { 'en-US': 'first' } } }], { id: randomUUID() });
      await insert(store.id, first);
      // The same statement again (equal signature): unchanged, so its definitions are not merged again.
      await insert(store.id, { ...first, activityDefinitions: [{ activityId: MEETING, definition: { name: { 'en-US': 'again' } } }] });
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'first' } });

      const conflicting = makeStatement({ id: first.statementId, variant: 'different' });
      const result = await storage.insertStatements(store.id, [
        defining([{ activityId: QUIZ, definition: { name: { 'en-US': 'quiz' } } }]),
        { ...conflicting, activityDefinitions: [{ activityId: MEETING, definition: { name: { 'en-US': 'conflict' } } }] },
      ]);
      expect(result.ok).toBe(false);
      expect(await definitionOf(QUIZ)).toBeNull();
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'first' } });
    });

    it('keeps each Store’s definitions apart, and deletes them with their Store', async () => {
      const other = makeStore();
      await storage.insertStore(other);
      await insert(store.id, defining([{ activityId: MEETING, definition: { name: { 'en-US': 'mine' } } }]));
      await insert(other.id, defining([{ activityId: MEETING, definition: { name: { 'en-US': 'theirs' } } }]));
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'mine' } });
      expect(await definitionOf(MEETING, other.id)).toEqual({ name: { 'en-US': 'theirs' } });

      await storage.deleteStore(other.id);
      await storage.insertStore(other);
      expect(await definitionOf(MEETING, other.id)).toBeNull();
      storage = await subject.reopen();
      expect(await definitionOf(MEETING, other.id)).toBeNull();
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'mine' } });
    });
  });
}
