/**
 * The statement as the client sent it, for the Statement Explorer, without keeping two copies of
 * every statement.
 *
 * The LRS stores the prepared statement (prepare-statement.ts): it adds the properties xAPI lets
 * it set (1.0.3 Part Two §2.3.1.b1: id, timestamp, version when the client sent none; stored,
 * always; authority, replacing the client's) and keeps the rest as received (§2.2.s2.b5). Taking
 * the added ones away gives back what was received, so usually a list of their names is all that
 * needs keeping. It does not when validation changed something (contextActivities objects become
 * arrays, §2.4.6.2.s4.b3; an id is lower-cased) or the LRS replaced a value the client sent
 * (authority, stored): then the received statement is kept too.
 */

/** The top-level properties the LRS sets on a statement it stores. */
const LRS_SET_PROPERTIES = ['id', 'timestamp', 'version', 'stored', 'authority'] as const;
export type LrsSetProperty = (typeof LRS_SET_PROPERTIES)[number];

export interface ReceivedForm {
  /** The LRS-set properties the client did not send: the LRS added them. */
  lrsAdded: LrsSetProperty[];
  /**
   * The statement as received; only when the stored statement without `lrsAdded` is not equal
   * to it (key order aside).
   */
  received?: unknown;
}

/** How to give back `received` (the parsed JSON the client sent) from `stored` (the statement as stored). */
export function receivedForm(received: unknown, stored: Record<string, unknown>): ReceivedForm {
  const sent = isPlainObject(received) ? received : {};
  const lrsAdded = LRS_SET_PROPERTIES.filter((name) => Object.hasOwn(stored, name) && !Object.hasOwn(sent, name));
  const same = isPlainObject(received) && sameMembers(stored, received, lrsAdded);
  return same ? { lrsAdded } : { lrsAdded, received };
}

/**
 * The statement as its client sent it, from what was recorded with it (StatementRow): the JSON as
 * received when it was kept, else the stored statement without the properties the LRS added, else
 * (nothing recorded: rows written before either existed) the stored statement.
 */
export function statementAsReceived(stored: Record<string, unknown>, received: unknown, lrsAdded: readonly LrsSetProperty[] | undefined): unknown {
  if (received !== undefined) return received;
  return lrsAdded === undefined ? stored : withoutProperties(stored, lrsAdded);
}

/** A shallow copy of `statement` without the named top-level properties. */
export function withoutProperties(statement: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(statement)) {
    // defineProperty: a key named "__proto__" stays data (plain assignment would set the prototype).
    if (!names.includes(key)) Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * Equal as JSON values: objects by their own keys whatever their order (a key holding undefined
 * is absent, as JSON.stringify writes it), arrays in order.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  return isPlainObject(a) && isPlainObject(b) && sameMembers(a, b, NONE);
}

const NONE: readonly string[] = [];

/**
 * sameJson of two objects, `a` read without its members named in `skipped` (as withoutProperties
 * would copy it). Loops, not filtered copies of the keys: this compares every member of every
 * statement written.
 */
function sameMembers(a: Record<string, unknown>, b: Record<string, unknown>, skipped: readonly string[]): boolean {
  let members = 0;
  for (const key of Object.keys(a)) {
    const value = a[key];
    if (value === undefined || skipped.includes(key)) continue;
    members++;
    if (!Object.hasOwn(b, key) || !sameJson(value, b[key])) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined) members--;
  return members === 0;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
