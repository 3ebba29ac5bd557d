/**
 * The Activity definition merge every Storage implementation applies (storage.ts,
 * ActivityDefinitionRow): members replace, objects on both sides merge key by key.
 */

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, even one named "__proto__" (plain assignment would change the prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The merge every Storage implementation applies (storage.ts, ActivityDefinitionRow): members
 * replace, objects on both sides merge key by key. Neither argument is changed.
 */
export function mergeDefinition(stored: Record<string, unknown>, received: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) setOwn(merged, key, value);
  for (const [key, value] of Object.entries(received)) {
    const current = Object.hasOwn(merged, key) ? merged[key] : undefined;
    if (isPlainObject(current) && isPlainObject(value)) {
      const inner: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(current)) setOwn(inner, k, v);
      for (const [k, v] of Object.entries(value)) setOwn(inner, k, v);
      setOwn(merged, key, inner);
    } else {
      setOwn(merged, key, value);
    }
  }
  return merged;
}


/**
 * True when merging `received` over `stored` gives `stored` back unchanged, JSON text included:
 * every member it sends is stored with the same value, keys in the same order (an object on both
 * sides: each of its members so). Content repeats its definitions in every statement, so this is
 * the usual case, and it is answered without building the merge and its JSON.
 */
export function mergeChangesNothing(stored: Record<string, unknown>, received: Record<string, unknown>): boolean {
  for (const key of Object.keys(received)) {
    if (!Object.hasOwn(stored, key)) return false;
    const current = stored[key];
    const value = received[key];
    if (isPlainObject(current) && isPlainObject(value)) {
      for (const inner of Object.keys(value)) {
        if (!Object.hasOwn(current, inner) || !sameOrderedJson(current[inner], value[inner])) return false;
      }
    } else if (!sameOrderedJson(current, value)) {
      return false;
    }
  }
  return true;
}

/** Equal as JSON text would be: the same members in the same order, arrays item by item. */
function sameOrderedJson(a: unknown, b: unknown): boolean {
  if (a === b) return a !== undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameOrderedJson(a[i], b[i])) return false;
    return true;
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i]!;
    if (key !== bKeys[i] || !sameOrderedJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
