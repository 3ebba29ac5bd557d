import { describe, expect, it } from 'vitest';
import { prepareStatement } from '../../src-server/xapi/prepare-statement';
import { canonicalJson, canonicalJsonByWalk, statementSignature } from '../../src-server/xapi/statement-signature';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { validateStatement } from '../../src-server/xapi/validate-statements';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { invalidFixtures, validFixtures, validStatement } from './fixtures';

type Json = Record<string, unknown>;

/** A statement as received (not validated), so the signature's own normalisation is what is tested. */
function full(): Json {
  return validStatement('full-statement');
}

function same(a: Json, b: Json): boolean {
  return statementSignature(a) === statementSignature(b);
}

describe('statementSignature: the same statement', () => {
  it('is a sha256 hex digest', () => {
    expect(statementSignature(full())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores property order', () => {
    const statement = full();
    const reordered = Object.fromEntries(Object.entries(statement).reverse());
    reordered.actor = Object.fromEntries(Object.entries(statement.actor as Json).reverse());
    expect(same(statement, reordered)).toBe(true);
  });

  it('ignores what the LRS assigns: id, authority, stored, timestamp and version', () => {
    const { id: _id, authority: _a, stored: _s, timestamp: _t, version: _v, ...bare } = full();
    expect(same(full(), bare)).toBe(true);
  });

  it('matches a statement as received and as prepared for storage', () => {
    const received = validateStatement(validStatement('minimal'), '1.0.3');
    if (!received.ok) throw new Error('fixture');
    const prepared = prepareStatement(received.statement, {
      authority: { mbox: 'mailto:key@example.com' },
      version: '1.0.3',
      stored: '2024-06-02T08:00:00.000Z',
      newId: () => '6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f',
    });
    expect(statementSignature(prepared)).toBe(statementSignature(validStatement('minimal')));
  });

  it('ignores the case of UUIDs, of the mbox domain and of SHA-1 digests', () => {
    const statement = full();
    const context = statement.context as Json;
    const upper = {
      ...statement,
      actor: { mbox: 'mailto:ada@EXAMPLE.com' },
      context: { ...context, registration: (context.registration as string).toUpperCase(), team: { ...(context.team as Json), mbox_sha1sum: 'CD9B00A5611F94EAA7B1661EDAB976068E364975' } },
    };
    expect(same({ ...statement, actor: { mbox: 'mailto:ada@example.com' } }, upper)).toBe(true);
  });

  it('ignores the order of Group members', () => {
    const a = { mbox: 'mailto:a@example.com' };
    const b = { account: { homePage: 'https://e.com', name: 'b' } };
    expect(same({ ...full(), actor: { objectType: 'Group', member: [a, b] } }, { ...full(), actor: { objectType: 'Group', member: [b, a] } })).toBe(true);
  });

  it('ignores Verb display and Activity definitions, and a default objectType', () => {
    const statement = full();
    const plain = {
      ...statement,
      actor: { name: 'Ada', account: (statement.actor as Json).account },
      verb: { id: (statement.verb as Json).id },
      object: { id: (statement.object as Json).id },
    };
    expect(same(statement, plain)).toBe(true);
  });

  it('treats a single contextActivities Activity and a one-item array alike', () => {
    const single = validStatement('single-context-activity');
    const context = single.context as { contextActivities: { parent: Json } };
    const asArray = { ...single, context: { contextActivities: { parent: [context.contextActivities.parent] } } };
    expect(same(single, asArray)).toBe(true);
  });

  it('ignores a JWS signature attachment, so a signed copy matches its payload', () => {
    const signature = {
      usageType: 'http://adlnet.gov/expapi/attachments/signature',
      display: { 'en-US': 'Signature' },
      contentType: 'application/octet-stream',
      length: 4235,
      sha2: '672fa5fa658017f1b72d65036f13379c6ab05d4ab3b6664908d8acf0b6a0c634',
    };
    const { attachments: _attachments, ...payload } = validStatement('minimal');
    expect(same(payload, { ...payload, attachments: [signature] })).toBe(true);
  });

  it('ignores duration precision beyond hundredths of a second', () => {
    expect(same({ ...full(), result: { duration: 'P1DT12H36M0.1237S' } }, { ...full(), result: { duration: 'P1DT12H36M0.12S' } })).toBe(true);
    expect(same({ ...full(), result: { duration: 'PT1.10S' } }, { ...full(), result: { duration: 'PT1.1S' } })).toBe(true);
  });

  it("compares a SubStatement's timestamp as an instant", () => {
    const sub = validStatement('substatement');
    const object = sub.object as Json;
    expect(same(sub, { ...sub, object: { ...object, timestamp: '2030-01-01T11:00:00.000+01:00' } })).toBe(true);
  });
});

describe('statementSignature: a different statement', () => {
  const variants: Array<[string, (statement: Json) => Json]> = [
    ['another verb id', (s) => ({ ...s, verb: { id: 'http://adlnet.gov/expapi/verbs/failed' } })],
    ['another actor', (s) => ({ ...s, actor: { mbox: 'mailto:grace@example.com' } })],
    ['the local part of the mbox in another case', (s) => ({ ...s, actor: { mbox: 'mailto:Ada@example.com' } })],
    ['another score', (s) => ({ ...s, result: { ...(s.result as Json), score: { scaled: 0.6 } } })],
    ['another duration in hundredths', (s) => ({ ...s, result: { duration: 'PT1H30M15.26S' } })],
    ['another extension value', (s) => ({ ...s, result: { ...(s.result as Json), extensions: { 'http://example.com/ext/attempts': 3 } } })],
    ['another context activity', (s) => ({ ...s, context: { contextActivities: { parent: [{ id: 'http://example.com/other' }] } } })],
    ['another attachment', (s) => ({ ...s, attachments: [{ ...((s.attachments as Json[])[0] as Json), length: 1 }] })],
    ['no result', ({ result: _result, ...s }) => s],
  ];
  for (const [name, change] of variants) {
    it(`changes with ${name}`, () => {
      expect(same(full(), change(full()))).toBe(false);
    });
  }

  it("changes with a SubStatement's timestamp at another instant", () => {
    const sub = validStatement('substatement');
    expect(same(sub, { ...sub, object: { ...(sub.object as Json), timestamp: '2030-01-01T10:00:01Z' } })).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined properties', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: null }], c: undefined } })).toBe('{"a":{"d":[2,{"e":null,"f":1}]},"b":1}');
  });

  it('keeps a "__proto__" member of a statement part it rebuilds (an unvalidated JWS payload) as data', () => {
    const statement = (actor: string) => ({ actor: JSON.parse(actor) as Json, verb: { id: 'http://example.com/v' }, object: { id: 'http://example.com/a' } });
    const plain = statementSignature(statement('{"mbox":"mailto:a@example.com"}'));
    const withProto = statementSignature(statement('{"mbox":"mailto:a@example.com","__proto__":{"x":1}}'));
    const expected = createHash('sha256').update('{"actor":{"__proto__":{"x":1},"mbox":"mailto:a@example.com"},"object":{"id":"http://example.com/a"},"verb":{"id":"http://example.com/v"}}').digest('hex');
    expect(withProto).not.toBe(plain);
    expect(withProto).toBe(expected);
  });

  it('keeps a "__proto__" key of an extension value as data', () => {
    const value = JSON.parse('{"__proto__":{"x":1}}') as Statement;
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1}}');
  });

  it('writes the same text by its sorted copy as by the walk, whatever the value', () => {
    class Point {
      constructor(readonly x = 1) {}
    }
    const values: unknown[] = [
      ...validFixtures.map((f) => f.statement),
      ...invalidFixtures.map((f) => f.statement),
      { 10: 'a', 9: 'b', a: 1, '1x': 2, B: 3, é: 4, '': 5, ' ': 6 },
      { z: { '2': [1, { '0': null }] }, a: [undefined, () => 1, Symbol('s')] },
      { text: 'quote " slash \\ newline \n tab \t nul \u0000 lone \ud800 pair \ud83d\ude00 sep \u2028', n: [0, -0, 1e21, 1.5e-7, NaN, Infinity] },
      JSON.parse('{"b":{"__proto__":[1]},"a":1}'),
      Object.assign(Object.create(null) as object, { b: 1, a: { d: 2, c: 3 } }),
      { when: new Date(0), point: new Point(), map: new Map([[1, 2]]), list: Object.assign([1, 2], { extra: 3 }) },
      [[], {}, [{}], '', null, true, false],
      'plain', 42, null, undefined,
      { toJSON: 'not a function', nested: { toJSON: { a: 1 } } },
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(canonicalJsonByWalk(value));
  });

  it('refuses a value nested too deeply, either way', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 600; i++) deep = { a: deep };
    expect(() => canonicalJson(deep)).toThrow(RangeError);
    expect(() => canonicalJsonByWalk(deep)).toThrow(RangeError);
  });
});

describe('statementSignature: stable across releases', () => {
  // Stored rows keep their signatures: a change here would answer a re-sent statement with 409.
  const golden = JSON.parse(readFileSync(new URL('../fixtures/statement-signatures.json', import.meta.url), 'utf8')) as {
    signatures: Record<string, string>;
  };

  it.each(validFixtures.map((fixture) => [fixture.name, fixture.statement] as const))('gives %s the signature it always had', (name, statement) => {
    expect(statementSignature(statement)).toBe(golden.signatures[name]);
  });
});
