/**
 * What every Storage implementation does with Activity definitions (storage.ts,
 * ActivityDefinitionRow and findActivity), run by describeStorageContract for every implementation.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ActivityDefinitionRow, StatementRow } from '../../src-server/storage/storage';
import { at, makeStatement, makeStore } from './rows';
import type { StatementSpec } from './rows';
import type { ContractContext } from './storage-contract';

const MEETING = 'http://example.com/meetings/42';
const QUIZ = 'http://example.com/quiz/1';

function defining(definitions: ActivityDefinitionRow[], spec: StatementSpec = {}): StatementRow {
  return { ...makeStatement(spec), activityDefinitions: definitions };
}

export function describeActivitiesContract(ctx: ContractContext): void {
  describe('Activities', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;

    async function insert(intoStore: string, ...rows: StatementRow[]): Promise<void> {
      const result = await s().insertStatements(intoStore, rows);
      if (!result.ok) throw new Error('unexpected conflict');
    }

    async function definitionOf(activityId: string, ofStore = storeId()) {
      return (await s().findActivity(ofStore, activityId))?.definition ?? null;
    }

    it('finds nothing for an Activity no statement defined, or in an unknown Store', async () => {
      await insert(storeId(), makeStatement({ activity: MEETING }));
      expect(await s().findActivity(storeId(), MEETING)).toBeNull();
      expect(await s().findActivity('no-such-store', MEETING)).toBeNull();
    });

    it('keeps the definition an inserted statement carries, with its stored time, across a reopen', async () => {
      const definition = { name: { 'en-US': 'example meeting' }, type: 'http://adlnet.gov/expapi/activities/meeting' };
      await insert(storeId(), defining([{ activityId: MEETING, definition }], { storedAt: 5 }));
      const expected = { activityId: MEETING, definition, updated: at(5) };
      expect(await s().findActivity(storeId(), MEETING)).toEqual(expected);
      await ctx.reopen();
      expect(await s().findActivity(storeId(), MEETING)).toEqual(expected);
    });

    it('merges language maps and extensions key by key and replaces every other member, across batches', async () => {
      await insert(
        storeId(),
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
        storeId(),
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
      await ctx.reopen();
      expect(await definitionOf(QUIZ)).toEqual(expected);
    });

    it('merges definitions in row order within one batch and within one statement', async () => {
      await insert(
        storeId(),
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
      await insert(storeId(), defining([{ activityId: MEETING, definition }], { storedAt: 1 }));
      await insert(storeId(), defining([{ activityId: MEETING, definition }], { storedAt: 9 }));
      expect((await s().findActivity(storeId(), MEETING))?.updated).toBe(at(1));
      await insert(storeId(), defining([{ activityId: MEETING, definition: { name: { 'fr-FR': 'réunion' } } }], { storedAt: 12 }));
      expect((await s().findActivity(storeId(), MEETING))?.updated).toBe(at(12));
    });

    it('takes nothing from a row reported unchanged, nor from a batch refused as a conflict', async () => {
      const first = defining([{ activityId: MEETING, definition: { name: { 'en-US': 'first' } } }], { id: randomUUID() });
      await insert(storeId(), first);
      // The same statement again (equal signature): unchanged, so its definitions are not merged again.
      await insert(storeId(), { ...first, activityDefinitions: [{ activityId: MEETING, definition: { name: { 'en-US': 'again' } } }] });
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'first' } });

      const conflicting = makeStatement({ id: first.statementId, variant: 'different' });
      const result = await s().insertStatements(storeId(), [
        defining([{ activityId: QUIZ, definition: { name: { 'en-US': 'quiz' } } }]),
        { ...conflicting, activityDefinitions: [{ activityId: MEETING, definition: { name: { 'en-US': 'conflict' } } }] },
      ]);
      expect(result.ok).toBe(false);
      expect(await definitionOf(QUIZ)).toBeNull();
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'first' } });
    });

    it('keeps each Store’s definitions apart, and deletes them with their Store', async () => {
      const other = makeStore();
      await s().insertStore(other);
      await insert(storeId(), defining([{ activityId: MEETING, definition: { name: { 'en-US': 'mine' } } }]));
      await insert(other.id, defining([{ activityId: MEETING, definition: { name: { 'en-US': 'theirs' } } }]));
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'mine' } });
      expect(await definitionOf(MEETING, other.id)).toEqual({ name: { 'en-US': 'theirs' } });

      await s().deleteStore(other.id);
      await s().insertStore(other);
      expect(await definitionOf(MEETING, other.id)).toBeNull();
      await ctx.reopen();
      expect(await definitionOf(MEETING, other.id)).toBeNull();
      expect(await definitionOf(MEETING)).toEqual({ name: { 'en-US': 'mine' } });
    });

    it('merges a new definition over nothing once the Store was emptied (no definition outlives its rows)', async () => {
      await insert(storeId(), defining([{ activityId: MEETING, definition: { name: { 'en-US': 'old' }, type: 'http://example.com/old' } }]));
      await s().emptyStore(storeId());
      await insert(storeId(), defining([{ activityId: MEETING, definition: { name: { 'fr-FR': 'nouveau' } } }]));
      expect(await definitionOf(MEETING)).toEqual({ name: { 'fr-FR': 'nouveau' } });
      await ctx.reopen();
      expect(await definitionOf(MEETING)).toEqual({ name: { 'fr-FR': 'nouveau' } });
    });
  });
}
