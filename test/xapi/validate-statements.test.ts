import { describe, expect, it } from 'vitest';
import { validateStatement, validateStatements } from '../../src-server/xapi/validate-statements';
import { validStatement } from './fixtures';

const minimal = () => validStatement('minimal');

function issueOf(body: unknown, version: '1.0.3' | '2.0.0' = '1.0.3') {
  const result = validateStatements(body, version);
  if (result.ok) throw new Error('expected the body to be rejected');
  return result.issue;
}

describe('validateStatements: results', () => {
  it('accepts one statement object and returns it as a one-item list', () => {
    const result = validateStatements(minimal(), '1.0.3');
    expect(result).toEqual({ ok: true, statements: [minimal()] });
  });

  it('accepts a batch and returns its statements in order', () => {
    const second = { ...minimal(), verb: { id: 'http://adlnet.gov/expapi/verbs/attempted' } };
    const result = validateStatements([minimal(), second], '2.0.0');
    expect(result.ok && result.statements.map((s) => s.verb.id)).toEqual([
      'http://adlnet.gov/expapi/verbs/completed',
      'http://adlnet.gov/expapi/verbs/attempted',
    ]);
  });

  it('turns a single contextActivities Activity into a one-item array, in a SubStatement too', () => {
    const statement = validStatement('substatement');
    const result = validateStatement(statement, '1.0.3');
    expect(result.ok).toBe(true);
    if (!result.ok || result.statement.object.objectType !== 'SubStatement') return;
    expect(result.statement.object.context?.contextActivities?.parent).toEqual([{ id: 'http://example.com/meetings' }]);
  });

  it('does not change the statement it is given', () => {
    const statement = validStatement('single-context-activity');
    const before = structuredClone(statement);
    validateStatement(statement, '2.0.0');
    expect(statement).toEqual(before);
  });
});

describe('validateStatements: issues', () => {
  it('rejects an mbox without mailto: and names actor.mbox', () => {
    const statement = { ...minimal(), actor: { mbox: 'ada@example.com' } };
    expect(issueOf(statement)).toEqual({
      field: 'actor.mbox',
      message: 'actor.mbox must be "mailto:" followed by an email address, got "ada@example.com"',
    });
  });

  it('says which of actor, verb and object is missing', () => {
    const { verb: _verb, ...withoutVerb } = minimal();
    expect(issueOf(withoutVerb)).toEqual({ field: 'verb', message: 'verb is required' });
  });

  it('names an extra property and the object it is not allowed in', () => {
    expect(issueOf({ ...minimal(), foo: 1 })).toEqual({ field: 'foo', message: 'extra property "foo" not allowed in a Statement' });
    expect(issueOf({ ...minimal(), verb: { id: 'http://example.com/v', name: 'x' } }).message).toBe(
      'extra property "name" not allowed in a Verb',
    );
  });

  it('reports a wrong-case property as that property, with the right spelling, rather than as a missing one', () => {
    const { object, ...rest } = minimal();
    expect(issueOf({ ...rest, Object: object })).toEqual({
      field: 'Object',
      message: 'extra property "Object" not allowed in a Statement (property names are case-sensitive: did you mean "object"?)',
    });
  });

  it('explains an Agent with two identifiers', () => {
    const statement = { ...minimal(), actor: { mbox: 'mailto:ada@example.com', mbox_sha1sum: 'cd9b00a5611f94eaa7b1661edab976068e364975' } };
    expect(issueOf(statement)).toEqual({
      field: 'actor',
      message: 'actor has more than one identifier (mbox, mbox_sha1sum); an Agent must have exactly one',
    });
  });

  it('quotes the value received for a bad IRI, UUID, timestamp, duration and score', () => {
    expect(issueOf({ ...minimal(), verb: { id: 'completed' } }).message).toBe(
      'verb.id must be an IRI with a scheme, such as "http://adlnet.gov/expapi/verbs/completed", got "completed"',
    );
    expect(issueOf({ ...minimal(), id: 'abc' }).message).toMatch(/^id must be a UUID .*, got "abc"$/);
    expect(issueOf({ ...minimal(), timestamp: '01/05/2024' }).message).toMatch(/^timestamp must be an ISO 8601 timestamp .*, got "01\/05\/2024"$/);
    expect(issueOf({ ...minimal(), result: { duration: 'PT1.5H30M' } }).message).toMatch(/^result\.duration must be an ISO 8601 duration .*, got "PT1\.5H30M"$/);
    expect(issueOf({ ...minimal(), result: { score: { scaled: -2 } } }).message).toBe('result.score.scaled must be between -1 and 1, got -2');
    expect(issueOf({ ...minimal(), result: { score: { raw: 5, min: 6 } } }).message).toBe('result.score.raw must not be less than min (6), got 5');
  });

  it('says that null is not allowed and how to leave a value out', () => {
    expect(issueOf({ ...minimal(), timestamp: null })).toEqual({
      field: 'timestamp',
      message: 'timestamp must not be null (leave the property out instead)',
    });
  });

  it('names a bad language map key with its map', () => {
    const statement = { ...minimal(), verb: { id: 'http://example.com/v', display: { 'en-US': 'ok', english: 'no' } } };
    expect(issueOf(statement)).toEqual({
      field: 'verb.display.english',
      message: 'verb.display has the key "english", which is not an RFC 5646 language tag such as "en-US"',
    });
  });

  it('points at objectType when an Agent object leaves it out', () => {
    const statement = { ...minimal(), object: { mbox: 'mailto:grace@example.com' } };
    expect(issueOf(statement).field).toBe('object.objectType');
  });

  it('explains that contextAgents needs xAPI 2.0.0 under 1.0.3', () => {
    const statement = validStatement('context-agents-and-groups');
    expect(issueOf(statement, '1.0.3')).toEqual({
      field: 'context.contextAgents',
      message:
        'context.contextAgents is an xAPI 2.0.0 property; it is not allowed under xAPI 1.0.3 (send X-Experience-API-Version: 2.0.0 to use contextAgents)',
    });
    expect(validateStatement(statement, '2.0.0').ok).toBe(true);
  });

  it('rejects a timestamp without a time zone under 2.0.0 but reads it as UTC under 1.0.3', () => {
    const statement = { ...minimal(), timestamp: '2024-05-01T09:30:00' };
    expect(validateStatement(statement, '1.0.3').ok).toBe(true);
    expect(issueOf(statement, '2.0.0').message).toContain('with a time zone');
  });
});

describe('validateStatements: batches', () => {
  it('gives the statementIndex and a field relative to that statement', () => {
    const bad = { ...minimal(), context: { contextActivities: { parent: [{ id: 'http://example.com/a' }, { id: 'nope' }] } } };
    expect(issueOf([minimal(), bad])).toMatchObject({ field: 'context.contextActivities.parent[1].id', statementIndex: 1 });
  });

  it('reports the first invalid statement of a batch only', () => {
    const issue = issueOf([minimal(), { ...minimal(), id: 'first-bad' }, { ...minimal(), actor: null }]);
    expect(issue).toMatchObject({ field: 'id', statementIndex: 1 });
  });

  it('rejects a batch that uses one id twice, whatever its case, at the second use', () => {
    const id = '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f';
    const issue = issueOf([{ ...minimal(), id }, minimal(), { ...minimal(), id: id.toUpperCase() }]);
    expect(issue).toMatchObject({ field: 'id', statementIndex: 2 });
    expect(issue.message).toContain('statement 0');
  });

  it('gives no statementIndex when the body is a single statement', () => {
    expect(issueOf({ ...minimal(), id: 'x' })).not.toHaveProperty('statementIndex');
  });

  it('accepts an empty batch as no statements (refusing it is the HTTP layer\'s choice)', () => {
    expect(validateStatements([], '1.0.3')).toEqual({ ok: true, statements: [] });
  });
});

describe('validateStatements: hostile and odd input never throws', () => {
  it('rejects a body that is not a statement object, with an empty field', () => {
    for (const body of [null, undefined, 'statement', 42, true]) {
      const issue = issueOf(body);
      expect(issue.field).toBe('');
    }
    expect(issueOf('text').message).toBe('each statement must be a JSON object, got "text"');
    expect(issueOf([[]])).toMatchObject({ field: '', statementIndex: 0, message: 'each statement must be a JSON object, got an empty array' });
  });

  it('rejects a "__proto__" property of a statement as an extra property, without touching prototypes', () => {
    const body = JSON.parse('{"actor":{"mbox":"mailto:a@example.com"},"verb":{"id":"http://e.com/v"},"object":{"id":"http://e.com/a"},"__proto__":{"polluted":true}}');
    expect(issueOf(body)).toEqual({ field: '__proto__', message: 'extra property "__proto__" not allowed in a Statement' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('treats "constructor" and "toString" as the unknown keys they are', () => {
    const display = JSON.parse('{"constructor":"x"}');
    expect(issueOf({ ...minimal(), verb: { id: 'http://e.com/v', display } }).field).toBe('verb.display.constructor');
    expect(issueOf({ ...minimal(), toString: 'x' }).field).toBe('toString');
  });

  it('rejects extension values nested deeper than 64 levels, built deeper than any stack', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    const issue = issueOf({ ...minimal(), result: { extensions: { 'http://example.com/ext': deep } } });
    expect(issue.field).toMatch(/^result\.extensions\.http:\/\/example\.com\/ext(\[0\]){64}$/);
    expect(issue.message).toContain('more than 64 levels deep');
  });

  it('rejects deep nesting where no nesting belongs, without walking it', () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i += 1) deep = { a: deep };
    expect(issueOf({ ...minimal(), actor: deep }).field).toBe('actor.a');
  });

  it('rejects values JSON cannot hold: cycles, functions, NaN, undefined, bigint', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [cyclic, () => 1, Number.NaN, [undefined], 10n]) {
      const issue = issueOf({ ...minimal(), context: { extensions: { 'http://example.com/ext': value } } });
      expect(issue.field.startsWith('context.extensions.http://example.com/ext')).toBe(true);
    }
  });

  it('answers with an issue when reading the input throws', () => {
    const trap = new Proxy({}, { ownKeys: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } });
    expect(issueOf(trap)).toEqual({ field: '', message: 'the statement could not be read as plain JSON' });
    const getter = Object.defineProperty({ ...minimal() }, 'verb', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(issueOf([getter])).toMatchObject({ field: '', statementIndex: 0 });
  });

  // Speed is measured by the benchmark suite, not asserted here: this machine's timing is noisy.
  it('validates a batch of 2,000 full statements', () => {
    const statement = validStatement('full-statement');
    delete statement.id;
    const batch = Array.from({ length: 2000 }, () => structuredClone(statement));
    const result = validateStatements(batch, '1.0.3');
    expect(result.ok && result.statements.length).toBe(2000);
  });
});
