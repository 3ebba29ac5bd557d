import { describe, expect, it } from 'vitest';
import { fieldWithinStatement, findJsonPathRange } from '../../src-renderer/features/explorer/json-path-range';

const statement = {
  actor: { mbox: 'ada@example.com', name: 'Ada' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed' },
  object: { id: 'http://example.com/m1' },
  context: { contextActivities: { parent: [{ id: 'http://example.com/course' }, { id: 'not an iri' }] } },
  result: { extensions: { 'http://example.com/ext.v1': { 'a.b': 1 } } },
};
const text = JSON.stringify(statement, null, 2);
const slice = (path: string) => {
  const range = findJsonPathRange(text, path);
  return range && { text: text.slice(range.start, range.end), exact: range.exact };
};

describe('findJsonPathRange', () => {
  it('finds a member from its key to the end of its value', () => {
    expect(slice('actor.mbox')).toEqual({ text: '"mbox": "ada@example.com"', exact: true });
  });

  it('follows array indexes in a dotted path', () => {
    expect(slice('context.contextActivities.parent[1].id')).toEqual({ text: '"id": "not an iri"', exact: true });
    expect(slice('context.contextActivities.parent[0]')?.text).toBe('{\n          "id": "http://example.com/course"\n        }');
  });

  it('matches extension keys that contain dots, longest key first', () => {
    expect(slice('result.extensions.http://example.com/ext.v1.a.b')).toEqual({ text: '"a.b": 1', exact: true });
  });

  it('marks the deepest present parent when the field itself is missing', () => {
    expect(slice('actor.account.name')).toEqual({ text: text.slice(text.indexOf('"actor"'), text.indexOf('},') + 1), exact: false });
    expect(slice('context.contextActivities.parent[5].id')?.exact).toBe(false);
  });

  it('returns null when nothing of the path is present or the text is not JSON', () => {
    expect(findJsonPathRange(text, 'timestamp')).toBeNull();
    expect(findJsonPathRange('{"a": ', 'a')).toBeNull();
  });

  it('copes with escaped quotes in strings and compact JSON', () => {
    const compact = JSON.stringify({ a: 'say "hi"', b: [1, { c: true }] });
    const range = findJsonPathRange(compact, 'b[1].c');
    expect(range && compact.slice(range.start, range.end)).toBe('"c":true');
  });
});

describe('fieldWithinStatement', () => {
  it('drops a batch index prefix', () => {
    expect(fieldWithinStatement('[2].actor.mbox')).toBe('actor.mbox');
    expect(fieldWithinStatement('actor.mbox')).toBe('actor.mbox');
  });
});
