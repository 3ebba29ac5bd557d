/**
 * Where a JSON text first goes wrong, as a line and column a person can find in an editor.
 * JSON.parse's own messages differ between Node versions and often give neither (`Unexpected
 * token 'x', "{ "actor…" is not valid JSON`), so a body that failed to parse is walked once more
 * here. Only failed bodies come here, and their nesting depth was already bounded by the scan in
 * http/plugins/limits-json-scan.ts, so the recursion is shallow and the cost does not matter.
 */

export interface JsonSyntaxFault {
  /** 1-based, as editors count. */
  line: number;
  column: number;
  /** What was found where something else was expected, in plain words. */
  problem: string;
}

class Fault extends Error {
  constructor(
    readonly offset: number,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** The first syntax error of `text`, or null when it is valid JSON. */
export function findJsonSyntaxFault(text: string): JsonSyntaxFault | null {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  const found = () => (i >= text.length ? 'the end of the body' : `"${text[i] === '"' ? '\\"' : text[i]}"`);
  const fail = (expected: string): never => {
    throw new Fault(i, `expected ${expected} but found ${found()}`);
  };
  const skipSpace = () => {
    while (i < text.length && WHITESPACE.has(text[i]!)) i++;
  };
  const literal = (word: string) => {
    for (const char of word) {
      if (text[i] !== char) fail(`"${word}"`);
      i++;
    }
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail('a closing quote');
      const char = text[i]!;
      if (char === '"') return void i++;
      if (char.charCodeAt(0) < 0x20) throw new Fault(i, 'a control character (such as a line break) inside a string; write it as an escape like \\n');
      if (char === '\\') {
        i++;
        const escaped = text[i];
        if (escaped === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('four hexadecimal digits after \\u');
          i += 5;
        } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) {
          i++;
        } else {
          fail('an escape such as \\" \\\\ \\n or \\u00e9');
        }
      } else {
        i++;
      }
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match || match[0] === '-' || match[0] === '') fail('a value');
    i += match![0].length;
  };
  const value = (): void => {
    skipSpace();
    const char = text[i];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return string();
    if (char === 't') return literal('true');
    if (char === 'f') return literal('false');
    if (char === 'n') return literal('null');
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return number();
    fail('a value (an object, array, string, number, true, false or null)');
  };
  const object = () => {
    i++;
    skipSpace();
    if (text[i] === '}') return void i++;
    for (;;) {
      skipSpace();
      if (text[i] !== '"') fail('a property name in double quotes');
      string();
      skipSpace();
      if (text[i] !== ':') fail('":" after the property name');
      i++;
      value();
      skipSpace();
      if (text[i] === '}') return void i++;
      if (text[i] !== ',') fail('"," or "}"');
      i++;
    }
  };
  const array = () => {
    i++;
    skipSpace();
    if (text[i] === ']') return void i++;
    for (;;) {
      value();
      skipSpace();
      if (text[i] === ']') return void i++;
      if (text[i] !== ',') fail('"," or "]"');
      i++;
    }
  };

  try {
    value();
    skipSpace();
    if (i < text.length) fail('the end of the body after the JSON value');
    return null;
  } catch (error) {
    if (!(error instanceof Fault)) throw error;
    return { ...lineAndColumn(text, error.offset), problem: error.problem };
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Where and what, as a clause: `at line 3, column 12, expected "," or "}" but found "x"`; null when valid. */
export function describeJsonSyntaxFault(text: string): string | null {
  const fault = findJsonSyntaxFault(text);
  return fault === null ? null : `at line ${fault.line}, column ${fault.column}, ${fault.problem}`;
}

/** One sentence for the client: where, and what. */
export function invalidJsonMessage(text: string): string {
  const where = describeJsonSyntaxFault(text);
  return where === null ? 'The body is not valid JSON.' : `The body is not valid JSON: ${where}.`;
}
