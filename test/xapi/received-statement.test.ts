import { describe, expect, it } from 'vitest';
import { prepareStatement } from '../../src-server/xapi/prepare-statement';
import { receivedForm, sameJson, withoutProperties, withoutPropertiesUtf8 } from '../../src-server/xapi/received-statement';
import { validateStatement } from '../../src-server/xapi/validate-statements';
import type { XapiVersion } from '../../src-server/xapi/version';
import { validFixtures, validStatement } from './fixtures';

const STORED = '2024-06-02T08:00:00.000Z';
const KEY_AUTHORITY = { objectType: 'Agent' as const, name: 'Course key', account: { homePage: 'https://lrs.example.com', name: 'lore_test_abc' } };

/** The statement as the LRS would store `received`. */
function stored(received: Record<string, unknown>, version: XapiVersion = '1.0.3'): Record<string, unknown> {
  const result = validateStatement(received, version);
  if (!result.ok) throw new Error(result.issue.message);
  return prepareStatement(result.statement, { authority: KEY_AUTHORITY, version, stored: STORED, newId: () => 'a6a9c2f4-8b1e-4c5d-9e7f-0a1b2c3d4e5f' });
}

/** What the Explorer shows: the received copy, or the stored statement without what the LRS added. */
function givenBack(received: Record<string, unknown>, version: XapiVersion = '1.0.3'): unknown {
  const statement = stored(received, version);
  const form = receivedForm(JSON.parse(JSON.stringify(received)), statement);
  return 'received' in form ? form.received : withoutProperties(statement, form.lrsAdded);
}

describe('receivedForm', () => {
  it('needs no copy of a statement the LRS only added to, and names what it added', () => {
    const received = validStatement('minimal');
    expect(receivedForm(received, stored(received))).toEqual({ lrsAdded: ['id', 'timestamp', 'version', 'stored', 'authority'] });
  });

  it('keeps nothing the client sent in its list of added properties', () => {
    const received = { ...validStatement('minimal'), id: 'a6a9c2f4-8b1e-4c5d-9e7f-0a1b2c3d4e5f', timestamp: STORED, version: '1.0.3' };
    expect(receivedForm(received, stored(received))).toEqual({ lrsAdded: ['stored', 'authority'] });
  });

  it('keeps a copy when validation turned a single context Activity into an array', () => {
    const received = validStatement('single-context-activity');
    expect(receivedForm(received, stored(received)).received).toEqual(received);
  });

  it('keeps a copy when the LRS replaced the authority or the stored time the client sent, or lower-cased its id', () => {
    const minimal = validStatement('minimal');
    for (const received of [
      { ...minimal, authority: { mbox: 'mailto:someone@example.com' } },
      { ...minimal, stored: '2020-01-01T00:00:00.000Z' },
      { ...minimal, id: 'A6A9C2F4-8B1E-4C5D-9E7F-0A1B2C3D4E5F' },
    ]) {
      expect(receivedForm(received, stored(received)).received).toEqual(received);
    }
  });

  it('needs no copy when a client authority equals the one the LRS sets', () => {
    const received = { ...validStatement('minimal'), authority: KEY_AUTHORITY };
    expect(receivedForm(received, stored(received))).toEqual({ lrsAdded: ['id', 'timestamp', 'version', 'stored'] });
  });

  it('gives back every valid fixture exactly as sent, under each version it is valid for', () => {
    for (const fixture of validFixtures) {
      for (const version of fixture.versions) {
        expect(givenBack(fixture.statement, version), `${fixture.name} ${version}`).toEqual(fixture.statement);
      }
    }
  });
});

describe('sameJson', () => {
  it('ignores key order and compares arrays in order', () => {
    expect(sameJson({ a: 1, b: { c: [1, { d: 2, e: 3 }] } }, { b: { c: [1, { e: 3, d: 2 }] }, a: 1 })).toBe(true);
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
  });

  it('tells apart an object from an array, a missing key from null, and numbers from strings', () => {
    expect(sameJson({}, [])).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
    expect(sameJson({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameJson({ a: 1 }, { b: 1 })).toBe(false);
  });

  it('treats a key holding undefined as absent, as JSON does', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });
});

describe('withoutProperties', () => {
  it('copies the statement without the named properties and leaves it unchanged', () => {
    const statement = { id: 'x', actor: { mbox: 'mailto:a@example.com' }, stored: STORED };
    expect(withoutProperties(statement, ['id', 'stored'])).toEqual({ actor: { mbox: 'mailto:a@example.com' } });
    expect(statement).toEqual({ id: 'x', actor: { mbox: 'mailto:a@example.com' }, stored: STORED });
  });

  it('keeps a key named "__proto__" as data', () => {
    const statement = JSON.parse('{"__proto__": {"polluted": true}, "id": "x"}') as Record<string, unknown>;
    const copy = withoutProperties(statement, ['id']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"polluted":true}}');
  });
});

describe('withoutPropertiesUtf8', () => {
  /** The text version on the text's UTF-8 bytes, as text (null stays null). */
  const withoutPropertiesJson = (json: string, names: readonly string[]) => withoutPropertiesUtf8(Buffer.from(json, 'utf8'), names)?.toString('utf8') ?? null;
  /** What the text version must give: the object's way. */
  const byParse = (json: string, names: readonly string[]) => JSON.stringify(withoutProperties(JSON.parse(json) as Record<string, unknown>, names));
  const ADDED = ['id', 'timestamp', 'version', 'stored', 'authority'] as const;

  it('gives what parsing, copying and serialising give, for every valid fixture as stored', () => {
    for (const fixture of validFixtures) {
      const json = JSON.stringify(stored(fixture.statement, fixture.versions[0]));
      for (const names of [ADDED, ['id'], ['authority', 'stored'], ['actor'], []]) expect(withoutPropertiesJson(json, names)).toBe(byParse(json, names));
    }
  });

  it('is not misled by quotes, escapes, braces and commas inside strings, or by nesting', () => {
    const statement = {
      id: 'x',
      a: 'he said "}{,]["\\',
      b: [{ c: ['},', { d: '\\"' }] }, 1.5e-7, null, true],
      stored: '{"id":1}',
      e: { '"id"': 'id', id: 'inner' },
      'é\u2028': '\ud83d\ude00 \\u0000',
      f: [],
      g: {},
      authority: { name: 'last' },
    };
    const json = JSON.stringify(statement);
    for (const names of [ADDED, ['a', 'b', 'e', 'f', 'g'], ['é\u2028'], ['authority']]) expect(withoutPropertiesJson(json, names)).toBe(byParse(json, names));
    expect(withoutPropertiesJson('{}', ['id'])).toBe('{}');
    expect(withoutPropertiesJson('{"id":"x"}', ['id'])).toBe('{}');
  });

  it('declines text that is not an object as JSON.stringify writes it', () => {
    for (const json of ['[1]', '{ "id": 1 }', '{"id":1', '{"id":"x}', '{"id":1}}', '"x"', '{"id" :1}']) expect(withoutPropertiesJson(json, ['id'])).toBeNull();
  });
});
