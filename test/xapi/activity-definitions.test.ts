import { describe, expect, it } from 'vitest';
import { extractActivityDefinitions } from '../../src-server/xapi/activity-definitions';
import { activityFixture, validatedFixture } from './activity-fixtures';

// xAPI 1.0.3 Part Three §2.5 / Part Two §2.4.4.1.s4: the definitions the LRS keeps come from
// every place a statement names an Activity.
describe('extractActivityDefinitions', () => {
  it('takes the object Activity’s definition exactly as sent', () => {
    const definitions = extractActivityDefinitions(validatedFixture('meeting-en'));
    const object = activityFixture('meeting-en').object as { id: string; definition: Record<string, unknown> };
    expect(definitions).toEqual([{ activityId: object.id, definition: object.definition }]);
  });

  it('takes the definitions of context activities too, and skips Activities with no or an empty definition', () => {
    const definitions = extractActivityDefinitions(validatedFixture('defined-in-context'));
    expect(definitions.map((d) => d.activityId)).toEqual([
      'http://example.com/quiz/1/question/3',
      'http://example.com/quiz/1',
      'http://example.com/profiles/quiz',
    ]);
    expect(definitions[0]!.definition).toMatchObject({ interactionType: 'choice', correctResponsesPattern: ['b'] });
  });

  it('takes the definitions inside a SubStatement (its object and its context activities)', () => {
    const definitions = extractActivityDefinitions(validatedFixture('defined-in-substatement'));
    expect(definitions).toEqual([
      { activityId: 'http://example.com/meetings/43', definition: { name: { 'en-US': 'next meeting' } } },
      { activityId: 'http://example.com/meetings', definition: { name: { 'en-US': 'meetings' } } },
    ]);
  });

  it('finds nothing in a statement whose object is an Agent or a StatementRef', () => {
    const base = validatedFixture('meeting-en');
    expect(extractActivityDefinitions({ ...base, object: { objectType: 'Agent', mbox: 'mailto:bo@example.com' } })).toEqual([]);
    expect(
      extractActivityDefinitions({ ...base, object: { objectType: 'StatementRef', id: '8f87ccde-bb56-4c2e-ab83-44982ef22df0' } }),
    ).toEqual([]);
  });
});
