/**
 * The one shape every xAPI rule reports a fault in. The HTTP layer turns it into
 * `{"error": {"status": 400, "code": "invalid_statement", "message", "field", "statementIndex"}}`.
 */

export interface XapiIssue {
  /**
   * Dotted path to the value at fault, `[n]` for array items: `actor.mbox`,
   * `context.contextActivities.parent[0].id`, `object.definition.name.en-US`. For a query, the
   * parameter name. Empty when the whole statement (or body) is at fault.
   */
  field: string;
  /** What was expected, in plain words, naming the field and what was received. */
  message: string;
  /** In a batch, which statement (0-based); the field is then relative to that statement. */
  statementIndex?: number;
}

export type PathSegment = string | number;

/** `['context', 'contextActivities', 'parent', 0, 'id']` → `context.contextActivities.parent[0].id`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

const MAX_SHOWN = 80;

/** A short, safe rendering of a received value for a message: `"ada@example.com"`, `42`, `an object`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value.length > MAX_SHOWN ? `${value.slice(0, MAX_SHOWN)}…` : value);
    return value.length === 0 ? 'an empty string' : quoted;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
