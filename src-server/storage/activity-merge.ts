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

