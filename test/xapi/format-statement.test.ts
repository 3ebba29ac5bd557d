import { describe, expect, it } from 'vitest';
import { formatStatement } from '../../src-server/xapi/format-statement';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { validateStatement } from '../../src-server/xapi/validate-statements';
import { validStatement } from './fixtures';

function stored(value: Record<string, unknown>): Statement {
  const result = validateStatement(value, '2.0.0');
  if (!result.ok) throw new Error(`${result.issue.field}: ${result.issue.message}`);
  return result.statement;
}

const full = () => stored(validStatement('full-statement'));

const withSubStatement = () =>
  stored({
    actor: { objectType: 'Agent', name: 'Ada', mbox: 'mailto:ada@example.com' },
    verb: { id: 'http://example.com/verbs/planned', display: { 'en-US': 'planned', 'en-GB': 'planned', de: 'plante' } },
    object: {
      objectType: 'SubStatement',
      actor: { objectType: 'Group', name: 'Team', mbox: 'mailto:team@example.com', member: [{ mbox: 'mailto:x@example.com' }] },
      verb: { id: 'http://adlnet.gov/expapi/verbs/attended', display: { 'en-US': 'attended', 'en-GB': 'attended (GB)' } },
      object: {
        objectType: 'Activity',
        id: 'http://example.com/meeting',
        definition: { name: { 'en-US': 'Meeting', 'en-GB': 'Meeting (GB)' }, description: { 'en-US': 'A meeting' }, type: 'http://adlnet.gov/expapi/activities/meeting' },
      },
    },
  });

describe('formatStatement: exact', () => {
  it('returns the statement as stored', () => {
    const statement = full();
    expect(formatStatement(statement, 'exact', ['de'])).toBe(statement);
  });
});

describe('formatStatement: ids', () => {
  it('reduces an Agent to objectType and its identifier, a Verb and an Activity to their ids', () => {
    const result = formatStatement(withSubStatement(), 'ids', []);
    expect(result.actor).toEqual({ objectType: 'Agent', mbox: 'mailto:ada@example.com' });
    expect(result.verb).toEqual({ id: 'http://example.com/verbs/planned' });
    if (result.object.objectType !== 'SubStatement') throw new Error('expected a SubStatement');
    expect(result.object.actor).toEqual({ objectType: 'Group', mbox: 'mailto:team@example.com' });
    expect(result.object.verb).toEqual({ id: 'http://adlnet.gov/expapi/verbs/attended' });
    expect(result.object.object).toEqual({ id: 'http://example.com/meeting' });
  });

  it('keeps the members of an anonymous Group, each reduced to its identifier', () => {
    const statement = stored({
      ...validStatement('anonymous-group-actor'),
      actor: { objectType: 'Group', name: 'Pair', member: [{ name: 'Ada', mbox: 'mailto:ada@example.com' }, { objectType: 'Agent', name: 'G', openid: 'https://id.example.com/g' }] },
    });
    expect(formatStatement(statement, 'ids', []).actor).toEqual({
      objectType: 'Group',
      member: [{ mbox: 'mailto:ada@example.com' }, { objectType: 'Agent', openid: 'https://id.example.com/g' }],
    });
  });

  it('reduces context agents and Activities and the authority too, and keeps other values', () => {
    const result = formatStatement(full(), 'ids', []);
    expect(result.context?.contextActivities?.category).toEqual([{ id: 'http://example.com/profiles/quiz' }]);
    expect(result.context?.instructor).toEqual({ objectType: 'Agent', openid: 'https://openid.example.com/grace' });
    expect(result.context?.team).toEqual({ objectType: 'Group', mbox_sha1sum: 'cd9b00a5611f94eaa7b1661edab976068e364975' });
    expect(result.authority).toEqual({ objectType: 'Agent', mbox: 'mailto:lms@example.com' });
    expect(result.result).toEqual(full().result);
    expect(result.context?.registration).toBe(full().context?.registration);
  });
});

describe('formatStatement: canonical', () => {
  it('keeps the one language Accept-Language prefers in Verbs and Activity definitions', () => {
    const result = formatStatement(withSubStatement(), 'canonical', ['en-GB']);
    expect(result.verb.display).toEqual({ 'en-GB': 'planned' });
    if (result.object.objectType !== 'SubStatement' || result.object.object.objectType !== 'Activity') throw new Error('shape');
    expect(result.object.verb.display).toEqual({ 'en-GB': 'attended (GB)' });
    expect(result.object.object.definition?.name).toEqual({ 'en-GB': 'Meeting (GB)' });
    // Only en-US exists: the map still keeps exactly one entry.
    expect(result.object.object.definition?.description).toEqual({ 'en-US': 'A meeting' });
  });

  it('leaves Agents and Groups as they were', () => {
    const statement = withSubStatement();
    const result = formatStatement(statement, 'canonical', ['de']);
    expect(result.actor).toEqual(statement.actor);
    if (result.object.objectType === 'SubStatement' && statement.object.objectType === 'SubStatement') {
      expect(result.object.actor).toEqual(statement.object.actor);
    }
  });

  it('matches a language range to the tags it prefixes, and follows q-values', () => {
    expect(formatStatement(withSubStatement(), 'canonical', ['fr', 'de']).verb.display).toEqual({ de: 'plante' });
    expect(formatStatement(withSubStatement(), 'canonical', ['en']).verb.display).toEqual({ 'en-US': 'planned' });
    expect(formatStatement(withSubStatement(), 'canonical', ['en-US;q=0.5', 'de;q=0.9']).verb.display).toEqual({ de: 'plante' });
    expect(formatStatement(withSubStatement(), 'canonical', ['de-AT']).verb.display).toEqual({ de: 'plante' });
  });

  it('falls back to the first language when nothing matches or no preference is given', () => {
    expect(formatStatement(withSubStatement(), 'canonical', ['ja']).verb.display).toEqual({ 'en-US': 'planned' });
    expect(formatStatement(withSubStatement(), 'canonical', []).verb.display).toEqual({ 'en-US': 'planned' });
  });

  it('reduces interaction components, context Activities and attachments too', () => {
    const result = formatStatement(full(), 'canonical', ['sr-Latn-RS', 'en-US']);
    if (result.object.objectType !== undefined && result.object.objectType !== 'Activity') throw new Error('shape');
    expect(result.object.definition?.choices?.map((choice) => choice.description)).toEqual([{ 'en-US': 'Jupiter' }, { 'sr-Latn-RS': 'Saturn' }]);
    expect(result.object.definition?.name).toEqual({ 'en-US': 'Which planet is largest?' });
    expect(result.attachments?.[0]?.display).toEqual({ 'en-US': 'Certificate' });
  });

  it('does not change the stored statement', () => {
    const statement = withSubStatement();
    const before = structuredClone(statement);
    formatStatement(statement, 'canonical', ['en-GB']);
    formatStatement(statement, 'ids', []);
    expect(statement).toEqual(before);
  });
});
