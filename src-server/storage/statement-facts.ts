/**
 * Values the console's statistics read from a statement, the same for every Storage
 * implementation: the object Activity a statement counts for, and the language maps shown as
 * verb and Activity names.
 */

/** The object Activity id of a statement, or null when its object is not an Activity. */
export function objectActivityId(statement: Record<string, unknown>): string | null {
  const object = statement.object as { objectType?: unknown; id?: unknown } | undefined;
  if (typeof object !== 'object' || object === null) return null;
  if (object.objectType !== undefined && object.objectType !== 'Activity') return null;
  return typeof object.id === 'string' ? object.id : null;
}

/** A language map, when `value` is one (an object of strings). */
export function languageMap(value: unknown): Record<string, string> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return entries.length > 0 ? Object.fromEntries(entries) : null;
}

