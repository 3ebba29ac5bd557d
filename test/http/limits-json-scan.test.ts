import { describe, expect, it } from 'vitest';
import { scanJson } from '../../src-server/http/plugins/limits-json-scan';

const limits = { maxDepth: 5, maxStringLength: 10 };
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('the JSON pre-scan', () => {
  it.each([
    ['an object', '{"a": 1}', null],
    ['an empty array', ' [ ] ', 0],
    ['an array of one statement', '[{"a": [1, 2, 3]}]', 1],
    ['an array of three, commas inside items not counted', '[{"a": [1, 2]}, "x,y", 3]', 3],
    ['an array after a byte order mark', '\ufeff[1, 2]', 2],
    ['brackets inside strings', '{"a": "[[[[[[[[[["}', null],
    ['escaped quotes inside strings', '{"a": "\\"[[[[[[[[\\""}', null],
    ['an escaped backslash closing a string', '[{"a": "\\\\"}, "\\\\", 2]', 3],
  ])('reads %s as fine, with its top-level item count', (_what, text, items) => {
    expect(scanJson(text, limits)).toEqual({ ok: true, topLevelItems: items });
  });

  it('accepts nesting exactly at the limit and refuses one level more, naming where', () => {
    expect(scanJson(nested(5), limits).ok).toBe(true);
    expect(scanJson(nested(6), limits)).toMatchObject({ ok: false, fault: 'depth', path: [0, 0, 0, 0, 0] });
  });

  it('names the path through object members and array items to the value nested too deep', () => {
    const text = '[{"a": 1}, {"context": {"extensions": {"http://x/y": {"b": [1, {"c": [[]]}]}}}}]';
    expect(scanJson(text, { maxDepth: 8, maxStringLength: 100 })).toMatchObject({
      ok: false,
      fault: 'depth',
      path: [1, 'context', 'extensions', 'http://x/y', 'b', 1, 'c', 0],
    });
  });

  it('refuses a string value longer than allowed and names its field', () => {
    expect(scanJson('{"a": "short", "b": {"c": "0123456789X"}}', limits)).toMatchObject({
      ok: false,
      fault: 'string',
      path: ['b', 'c'],
      inKey: false,
      length: 11,
    });
  });

  it('counts a string by its characters, not by its escapes', () => {
    // Ten characters written as 60: within the limit.
    expect(scanJson(`{"a": "${'\\u0041'.repeat(10)}"}`, limits).ok).toBe(true);
    expect(scanJson(`{"a": "${'\\u0041'.repeat(11)}"}`, limits)).toMatchObject({ ok: false, fault: 'string', length: 11 });
  });

  it('refuses a member name longer than allowed, naming the object that holds it', () => {
    expect(scanJson('{"a": {"ok": 1, "0123456789X": 1}}', limits)).toMatchObject({ ok: false, fault: 'string', path: ['a'], inKey: true });
  });

  it('ends on text that is not JSON without throwing', () => {
    for (const text of ['', '"unterminated', '{{{', ']]]]', '[1,', '{"a": "\\']) expect(() => scanJson(text, limits)).not.toThrow();
  });

  it('scans a body of a million brackets without recursion', () => {
    expect(scanJson(nested(1_000_000), { maxDepth: 100, maxStringLength: 1000 })).toMatchObject({ ok: false, fault: 'depth' });
  });
});
