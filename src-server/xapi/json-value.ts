/**
 * Checks that an opaque value (an extension's value, xAPI 1.0.3 Part Two §4.1) is plain JSON the
 * rest of the service can store, hash and serialise without surprises: no cycles, no functions,
 * no non-finite numbers, and nesting bounded so that recursive serialisers never overflow the stack.
 * The walk itself is iterative, so it cannot overflow on hostile input either.
 */

import type { PathSegment } from './issue';

/** Deep enough for any real extension; shallow enough for every recursive JSON consumer. */
const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  /** Path relative to the checked value. */
  path: PathSegment[];
  /** Phrase completing "<field> …". */
  message: string;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The first way `value` is not plain JSON, or null when it is. */
export function findJsonProblem(value: unknown, maxDepth: number = MAX_JSON_DEPTH): JsonProblem | null {
  const seen = new Set<object>();
  const stack: Array<{ value: unknown; path: PathSegment[] }> = [{ value, path: [] }];
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; path: PathSegment[] };
    const current = item.value;
    if (current === null || typeof current === 'string' || typeof current === 'boolean') continue;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) return { path: item.path, message: 'must be a finite number' };
      continue;
    }
    if (typeof current !== 'object') return { path: item.path, message: 'must be a JSON value' };
    if (item.path.length >= maxDepth) {
      return { path: item.path, message: `must not nest objects or arrays more than ${maxDepth} levels deep` };
    }
    if (seen.has(current)) return { path: item.path, message: 'must be a JSON value (it refers to itself)' };
    seen.add(current);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1) stack.push({ value: current[i], path: [...item.path, i] });
    } else if (isPlainObject(current)) {
      const keys = Object.keys(current);
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        const key = keys[i] as string;
        stack.push({ value: (current as Record<string, unknown>)[key], path: [...item.path, key] });
      }
    } else {
      return { path: item.path, message: 'must be a JSON value' };
    }
  }
  return null;
}
