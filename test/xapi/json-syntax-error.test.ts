import { describe, expect, it } from 'vitest';
import { findJsonSyntaxFault, invalidJsonMessage } from '../../src-server/xapi/json-syntax-error';

describe('where a JSON text first goes wrong', () => {
  it.each([
    ['{"a": 1,}', { line: 1, column: 9, problem: 'expected a property name in double quotes but found "}"' }],
    ['{\n  "a": 1\n  "b": 2\n}', { line: 3, column: 3, problem: 'expected "," or "}" but found "\\""' }],
    ["{'a': 1}", { line: 1, column: 2, problem: 'expected a property name in double quotes but found "\'"' }],
    ['[1, 2', { line: 1, column: 6, problem: 'expected "," or "]" but found the end of the body' }],
    ['{"a": tru}', { line: 1, column: 10, problem: 'expected "true" but found "}"' }],
    ['{"a": "line\nbreak"}', { line: 1, column: 12, problem: 'a control character (such as a line break) inside a string; write it as an escape like \\n' }],
    ['{"a": 1} {"b": 2}', { line: 1, column: 10, problem: 'expected the end of the body after the JSON value but found "{"' }],
    ['', { line: 1, column: 1, problem: 'expected a value (an object, array, string, number, true, false or null) but found the end of the body' }],
    ['{"a": "\\x"}', { line: 1, column: 9, problem: 'expected an escape such as \\" \\\\ \\n or \\u00e9 but found "x"' }],
  ])('finds the first fault of %j', (text, fault) => {
    expect(findJsonSyntaxFault(text)).toEqual(fault);
  });

  it.each(['{}', '[]', '\uFEFF{"a": [1, -2.5e3, true, false, null, "\\u00e9\\n"]}', ' "text" ', '0'])('finds none in valid JSON %j', (text) => {
    expect(findJsonSyntaxFault(text)).toBeNull();
    expect(() => JSON.parse(text.replace(/^\uFEFF/, ''))).not.toThrow();
  });

  it('says it in one sentence with the line and column', () => {
    expect(invalidJsonMessage('{\n "actor": x\n}')).toBe(
      'The body is not valid JSON: at line 2, column 11, expected a value (an object, array, string, number, true, false or null) but found "x".',
    );
  });
});
