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

import { CLOSE_ARRAY, CLOSE_OBJECT, CLOSE_OBJECT_BYTES, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, OPEN_OBJECT_BYTES, QUOTE, endOfStringUtf8, joinedUtf8 } from './json-text';

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
 * withoutProperties on JSON text, as UTF-8 bytes: `json` is an object as JSON.stringify writes it
 * (no white space), and the result is the bytes of JSON.stringify(withoutProperties(JSON.parse(json),
 * names)), without building the object or a string (a page of 50 statements parsed and written out
 * again cost the Explorer more than its query). The structure's bytes (quotes, backslashes, braces,
 * brackets, commas, colons) never occur inside a multi-byte character. Null when the text is not
 * such an object: the caller parses it instead.
 */
export function withoutPropertiesUtf8(json: Buffer, names: readonly string[]): Buffer | null {
  if (json[0] !== OPEN_OBJECT || json[json.length - 1] !== CLOSE_OBJECT) return null;
  if (names.length === 0 || json.length === 2) return json;
  const kept: Buffer[] = [];
  let at = 1;
  while (at < json.length - 1) {
    if (json[at] !== QUOTE) return null;
    const keyEnd = stringEnd(json, at);
    if (keyEnd < 0 || json[keyEnd] !== COLON) return null;
    const valueEnd = memberValueEnd(json, keyEnd + 1);
    if (valueEnd < 0) return null;
    // A key as JSON.stringify writes it has escapes only where its text needs them.
    const raw = json.toString('utf8', at + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(json.toString('utf8', at, keyEnd)) as string) : raw;
    if (!names.includes(key)) kept.push(json.subarray(at, valueEnd));
    const next = json[valueEnd];
    if (next === CLOSE_OBJECT) return valueEnd === json.length - 1 ? joinedUtf8(OPEN_OBJECT_BYTES, kept, CLOSE_OBJECT_BYTES) : null;
    if (next !== COMMA) return null;
    at = valueEnd + 1;
  }
  return null;
}

/** The index just after the string that opens at `at` (a quote), or -1 when it does not end. */
function stringEnd(json: Uint8Array, at: number): number {
  const close = endOfStringUtf8(json, at);
  return close < json.length ? close + 1 : -1;
}

/** The index of the comma or closing brace that ends the value starting at `at`, or -1. */
function memberValueEnd(json: Uint8Array, at: number): number {
  let depth = 0;
  for (let i = at; i < json.length; i++) {
    const c = json[i];
    if (c === QUOTE) {
      const end = stringEnd(json, i);
      if (end < 0) return -1;
      i = end - 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0) return i;
      depth--;
    } else if (c === COMMA && depth === 0) return i;
  }
  return -1;
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
