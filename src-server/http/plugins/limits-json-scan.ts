/**
 * A pre-scan of a JSON body's text, before anything builds it into objects: how deep it nests,
 * whether a string (or key) is longer than allowed, and how many items a top-level array holds
 * (a statement batch). One pass over the characters with no allocation; the path to a fault is
 * found by a second pass, only when there is a fault.
 *
 * Why before parsing: JSON.parse itself is iterative, but a 20 MB body of `[` builds ten million
 * arrays first, and every recursive consumer after it (JSON.stringify of a rejected payload,
 * zod, the signature hash) overflows the stack near 10,000 levels — a 500 instead of a 400.
 *
 * The scan trusts nothing: on text that is not JSON it still ends and reports what it saw; the
 * real parser then refuses the text with its own message.
 */
import type { PathSegment } from '../../xapi/issue';
import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, endOfString } from '../../xapi/json-text';

export type JsonScan =
  | { ok: true; /** Items of a top-level array, or null when the body is not an array. */ topLevelItems: number | null }
  | {
      ok: false;
      fault: 'depth' | 'string';
      path: PathSegment[];
      /** The long string is a member name of the object at `path`, not a value. */
      inKey: boolean;
      /** For 'string': its length in characters. */
      length?: number;
    };

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

/** The decoded length of the JSON string token text[start..end] (quotes included), or -1 when it is not valid. */
function decodedLength(text: string, start: number, end: number): number {
  try {
    return (JSON.parse(text.slice(start, end + 1)) as string).length;
  } catch {
    return -1;
  }
}

export function scanJson(text: string, limits: { maxDepth: number; maxStringLength: number }): JsonScan {
  const { maxDepth, maxStringLength } = limits;
  // Escapes only make the text longer than the value, so no string can pass the limit unless the
  // text does: the common small body skips the string check entirely.
  const checkStrings = text.length > maxStringLength;
  let depth = 0;
  const topIsArray = text.charCodeAt(firstNonSpace(text)) === OPEN_ARRAY;
  let topCommas = 0;
  let topHasItem = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      i = endOfString(text, start);
      if (depth === 1 && topIsArray) topHasItem = true;
      if (checkStrings && i - start - 1 > maxStringLength) {
        const decoded = decodedLength(text, start, i);
        if (decoded > maxStringLength) return { ok: false, fault: 'string', ...pathAt(text, start), length: decoded };
      }
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (depth === 1 && topIsArray) topHasItem = true;
      depth++;
      if (depth > maxDepth) return { ok: false, fault: 'depth', ...pathAt(text, i) };
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (depth > 0) depth--;
    } else if (depth === 1 && topIsArray) {
      if (code === COMMA) topCommas++;
      else if (!isSpace(code)) topHasItem = true;
    }
  }
  return { ok: true, topLevelItems: topIsArray ? (topHasItem ? topCommas + 1 : 0) : null };
}

function firstNonSpace(text: string): number {
  let i = 0;
  // A byte order mark counts as space here, as JSON parsers skip it.
  while (i < text.length && (isSpace(text.charCodeAt(i)) || text.charCodeAt(i) === 0xfeff)) i++;
  return i;
}

interface Frame {
  array: boolean;
  /** Array: the current item's index. Object: the current member's key (undefined before the first). */
  at: number | string | undefined;
  expectKey: boolean;
}

/** The path of the value that starts at `position` (a bracket or a string's opening quote). */
function pathAt(text: string, position: number): { path: PathSegment[]; inKey: boolean } {
  const stack: Frame[] = [];
  for (let i = 0; i < position; i++) {
    const code = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (code === QUOTE) {
      const start = i;
      i = endOfString(text, start);
      if (i >= position) break;
      if (top && !top.array && top.expectKey) {
        let key: string;
        try {
          key = JSON.parse(text.slice(start, i + 1)) as string;
        } catch {
          key = text.slice(start + 1, i);
        }
        top.at = key;
        top.expectKey = false;
      }
    } else if (code === OPEN_OBJECT) {
      stack.push({ array: false, at: undefined, expectKey: true });
    } else if (code === OPEN_ARRAY) {
      stack.push({ array: true, at: 0, expectKey: false });
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      stack.pop();
    } else if (code === COMMA && top) {
      if (top.array) top.at = (top.at as number) + 1;
      else top.expectKey = true;
    } else if (code === COLON && top && !top.array) {
      top.expectKey = false;
    }
  }
  // At a member name, the innermost object's last key is the previous member's: leave it out.
  const last = stack[stack.length - 1];
  const inKey = last !== undefined && !last.array && last.expectKey;
  const path: PathSegment[] = [];
  for (const frame of inKey ? stack.slice(0, -1) : stack) if (frame.at !== undefined) path.push(frame.at);
  return { path, inKey };
}
