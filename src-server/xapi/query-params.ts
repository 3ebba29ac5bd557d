/**
 * Checks shared by the small GET resources (activities, agents): every parameter is one the
 * resource knows, spelled with the right case. A misspelt parameter is a client error worth
 * naming, not something to ignore silently (the same rule as GET statements).
 */

import type { XapiIssue } from './issue';

/** The first parameter `params` holds that `known` does not list, as an issue; null when all are known. */
export function unknownParameterIssue(
  params: Record<string, string | undefined>,
  known: readonly string[],
  resource: string,
): XapiIssue | null {
  const unknown = Object.keys(params).find((name) => params[name] !== undefined && !known.includes(name));
  if (unknown === undefined) return null;
  const hint = known.find((name) => name.toLowerCase() === unknown.toLowerCase());
  return {
    field: unknown,
    message: `${unknown} is not a parameter of ${resource}${
      hint ? ` (parameter names are case-sensitive: did you mean "${hint}"?)` : ` (it takes ${known.join(', ')})`
    }`,
  };
}
