/**
 * The common statement, accepted without zod. Nearly every statement written has the same few
 * shapes: an Agent did a Verb to an Activity (or voided a statement), with a result and a context
 * made of Activities, language maps, extensions and formatted strings. zod's parse of such a
 * statement cost ~65 µs, more than any other step before storage; these hand-written checks of
 * the same rules cost a few.
 *
 * This is a shortcut, never a second rule set: it answers only "valid, and here is exactly what
 * the schema (statement-schema.ts) would have produced" or "not sure" (null). Anything it does not
 * handle itself — an invalid value of any kind, and the rarer shapes (Groups, SubStatements,
 * attachments, an authority sent by the client, interaction definitions, contextAgents and
 * contextGroups, a "__proto__" key, anything that is not plain JSON) — gives null, and the zod
 * schema then decides and words the error. So the errors are zod's as before, and what this
 * accepts the schema accepts with the same output: plain copies with the keys in the schema's
 * order, contextActivities as arrays, extension values as received
 * (test/xapi/common-statement.test.ts checks both against the schema).
 */

import { isIri, isIrl, isIsoDuration, isMailtoIri, isSha1Hex, isStatementVersion, isUuid } from './formats';
import { findJsonProblem } from './json-value';
import { isLanguageTag } from './language-tag';
import type { Statement } from './statement-schema';
import { isTimestamp } from './timestamp';
import type { XapiVersion } from './version';

type Obj = Record<string, unknown>;

const VOIDED_VERB_ID = 'http://adlnet.gov/expapi/verbs/voided';

/** An object as JSON.parse makes it, with only the allowed keys and no undefined member; else null. */
function plainWith(value: unknown, allowed: ReadonlySet<string>): Obj | null {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return null;
  const obj = value as Obj;
  for (const key in obj) {
    if (!allowed.has(key) || obj[key] === undefined) return null;
  }
  return obj;
}

/** A plain object whose keys are all checked by the caller (a language map, extensions). */
function plainMap(value: unknown): Obj | null {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return null;
  // JSON.parse makes "__proto__" an own key; the schema refuses it with its own message.
  return Object.hasOwn(value, '__proto__') ? null : (value as Obj);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

/** A check of one member: its value as the schema gives it back, or null when it is not valid (or not handled here). */
type Check = (value: unknown) => unknown;

/** A string of a format (formats.ts), kept as it is. */
function formatted(test: (value: string) => boolean): Check {
  return (value) => (isString(value) && test(value) ? value : null);
}

const anyString: Check = (value) => (isString(value) ? value : null);
const aBoolean: Check = (value) => (typeof value === 'boolean' ? value : null);
const iri = formatted(isIri);
const irl = formatted(isIrl);
const uuid = formatted(isUuid);

/**
 * Copies `input[key]` checked into `out`, in the order of the calls (the schema's key order).
 * True when absent or valid; false when the check refused it.
 */
function copyMember(out: Obj, input: Obj, key: string, check: Check): boolean {
  const value = input[key];
  if (value === undefined) return true;
  const checked = check(value);
  if (checked === null) return false;
  out[key] = checked;
  return true;
}

/** Copies the members of `input` in the order given, each checked; null when one is refused. */
function copyMembers(input: Obj, checks: ReadonlyArray<readonly [string, Check]>): Obj | null {
  const out: Obj = {};
  for (const [key, check] of checks) if (!copyMember(out, input, key, check)) return null;
  return out;
}

/** A map (plain object) whose every key and value pass the tests: a copy, values as they are. */
function mapOf(keyTest: (key: string) => boolean, valueTest: (value: unknown) => boolean): (value: unknown) => Obj | null {
  return (value) => {
    const map = plainMap(value);
    if (!map) return null;
    const out: Obj = {};
    for (const key of Object.keys(map)) {
      const item = map[key];
      if (!keyTest(key) || !valueTest(item)) return null;
      out[key] = item;
    }
    return out;
  };
}

/** A value an extension may hold: plain, bounded JSON (json-value.ts). */
function isExtensionValue(item: unknown): boolean {
  if (typeof item === 'object' && item !== null) return findJsonProblem(item) === null;
  if (typeof item === 'number') return Number.isFinite(item);
  return isString(item) || typeof item === 'boolean' || item === null;
}

/** 1.0.3 Part Two §4.2: keys language tags, values strings (an empty map is allowed). */
const languageMap = mapOf(isLanguageTag, isString);
/** 1.0.3 Part Two §4.1: keys IRIs, values any plain JSON. */
const extensions = mapOf(isIri, isExtensionValue);

const ACCOUNT_KEYS = new Set(['homePage', 'name']);
const ACCOUNT_CHECKS = [['homePage', irl], ['name', anyString]] as const;
const AGENT_KEYS = new Set(['objectType', 'name', 'mbox', 'mbox_sha1sum', 'openid', 'account']);
const IFI_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account'] as const;

function account(value: unknown): Obj | null {
  const input = plainWith(value, ACCOUNT_KEYS);
  if (!input || input.homePage === undefined || input.name === undefined) return null;
  return copyMembers(input, ACCOUNT_CHECKS);
}

const AGENT_CHECKS = [
  ['objectType', (value: unknown) => (value === 'Agent' ? value : null)],
  ['name', anyString],
  ['mbox', formatted(isMailtoIri)],
  ['mbox_sha1sum', formatted(isSha1Hex)],
  ['openid', iri],
  ['account', account],
] as const;

/** An Agent (§2.4.2.1) with exactly one identifier; its objectType required when it is an object. */
function agent(value: unknown, objectTypeRequired: boolean): Obj | null {
  const input = plainWith(value, AGENT_KEYS);
  if (!input || (objectTypeRequired && input.objectType === undefined)) return null;
  let identifiers = 0;
  for (const key of IFI_KEYS) if (input[key] !== undefined) identifiers++;
  return identifiers === 1 ? copyMembers(input, AGENT_CHECKS) : null;
}

const VERB_KEYS = new Set(['id', 'display']);
const VERB_CHECKS = [['id', iri], ['display', languageMap]] as const;

function verb(value: unknown): Obj | null {
  const input = plainWith(value, VERB_KEYS);
  return input && input.id !== undefined ? copyMembers(input, VERB_CHECKS) : null;
}

/** An Activity definition without interaction properties (those are left to the schema). */
const DEFINITION_KEYS = new Set(['name', 'description', 'type', 'moreInfo', 'extensions']);
const DEFINITION_CHECKS = [['name', languageMap], ['description', languageMap], ['type', iri], ['moreInfo', irl], ['extensions', extensions]] as const;

function definition(value: unknown): Obj | null {
  const input = plainWith(value, DEFINITION_KEYS);
  return input && copyMembers(input, DEFINITION_CHECKS);
}

const ACTIVITY_KEYS = new Set(['objectType', 'id', 'definition']);
const ACTIVITY_CHECKS = [['objectType', (value: unknown) => (value === 'Activity' ? value : null)], ['id', iri], ['definition', definition]] as const;

function activity(value: unknown): Obj | null {
  const input = plainWith(value, ACTIVITY_KEYS);
  return input && input.id !== undefined ? copyMembers(input, ACTIVITY_CHECKS) : null;
}

const STATEMENT_REF_KEYS = new Set(['objectType', 'id']);

function statementRef(value: unknown): Obj | null {
  const input = plainWith(value, STATEMENT_REF_KEYS);
  if (!input || input.objectType !== 'StatementRef' || !isString(input.id) || !isUuid(input.id)) return null;
  return { objectType: 'StatementRef', id: input.id };
}

/** A statement's object: an Activity, an Agent or a StatementRef (Groups and SubStatements: the schema). */
function statementObject(value: unknown): Obj | null {
  const objectType = typeof value === 'object' && value !== null ? (value as Obj).objectType : null;
  if (objectType === undefined || objectType === 'Activity') return activity(value);
  if (objectType === 'StatementRef') return statementRef(value);
  if (objectType === 'Agent') return agent(value, true);
  return null;
}

const SCORE_KEYS = new Set(['scaled', 'raw', 'min', 'max']);
const aNumber: Check = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const SCORE_CHECKS = [['scaled', aNumber], ['raw', aNumber], ['min', aNumber], ['max', aNumber]] as const;

/** §2.4.5.1: scaled within [-1, 1]; min not above max; raw within them. */
function score(value: unknown): Obj | null {
  const input = plainWith(value, SCORE_KEYS);
  const out = input && copyMembers(input, SCORE_CHECKS);
  if (!out) return null;
  const { scaled, raw, min, max } = out as Record<string, number | undefined>;
  if (scaled !== undefined && (scaled < -1 || scaled > 1)) return null;
  if (min !== undefined && max !== undefined && min > max) return null;
  if (raw !== undefined && ((min !== undefined && raw < min) || (max !== undefined && raw > max))) return null;
  return out;
}

const RESULT_KEYS = new Set(['score', 'success', 'completion', 'response', 'duration', 'extensions']);
const RESULT_CHECKS = [
  ['score', score],
  ['success', aBoolean],
  ['completion', aBoolean],
  ['response', anyString],
  ['duration', formatted(isIsoDuration)],
  ['extensions', extensions],
] as const;

function result(value: unknown): Obj | null {
  const input = plainWith(value, RESULT_KEYS);
  return input && copyMembers(input, RESULT_CHECKS);
}

/** §2.4.6.2: one Activity or an array of them, given back as an array (XAPI-00096). */
function activityList(value: unknown): Obj[] | null {
  const items = Array.isArray(value) ? value : [value];
  const copies: Obj[] = [];
  for (const item of items) {
    const copy = activity(item);
    if (!copy) return null;
    copies.push(copy);
  }
  return copies;
}

const CONTEXT_ACTIVITIES_KEYS = new Set(['parent', 'grouping', 'category', 'other']);
const CONTEXT_ACTIVITIES_CHECKS = [['parent', activityList], ['grouping', activityList], ['category', activityList], ['other', activityList]] as const;

function contextActivities(value: unknown): Obj | null {
  const input = plainWith(value, CONTEXT_ACTIVITIES_KEYS);
  return input && copyMembers(input, CONTEXT_ACTIVITIES_CHECKS);
}

/** A Context without team, contextAgents or contextGroups (those are left to the schema). */
const CONTEXT_KEYS = new Set(['registration', 'instructor', 'contextActivities', 'revision', 'platform', 'language', 'statement', 'extensions']);
const CONTEXT_CHECKS = [
  ['registration', uuid],
  ['instructor', (value: unknown) => agent(value, false)],
  ['contextActivities', contextActivities],
  ['revision', anyString],
  ['platform', anyString],
  ['language', formatted(isLanguageTag)],
  ['statement', statementRef],
  ['extensions', extensions],
] as const;

function context(value: unknown): Obj | null {
  const input = plainWith(value, CONTEXT_KEYS);
  return input && copyMembers(input, CONTEXT_CHECKS);
}

const STATEMENT_KEYS = new Set(['id', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'stored', 'version']);

/** The members of a statement, in the schema's order, with the checks of each version. */
function statementChecks(version: XapiVersion): ReadonlyArray<readonly [string, Check]> {
  const timestamp = formatted((text) => isTimestamp(text, version));
  return [
    ['id', uuid],
    ['actor', (actor) => agent(actor, false)],
    ['verb', verb],
    ['object', statementObject],
    ['result', result],
    ['context', context],
    ['timestamp', timestamp],
    ['stored', timestamp],
    ['version', formatted((text) => isStatementVersion(text, version))],
  ];
}

const STATEMENT_CHECKS: Readonly<Record<XapiVersion, ReadonlyArray<readonly [string, Check]>>> = {
  '1.0.3': statementChecks('1.0.3'),
  '2.0.0': statementChecks('2.0.0'),
};

/**
 * An Agent with one identifier, as the statement's actor would be (objectType optional): the
 * schema's output for it, or null when the schema must decide (a Group, anything invalid). The
 * `agent` parameter of GET statements is checked by the same rules (agent-key.ts).
 */
export function commonAgent(value: unknown): Record<string, unknown> | null {
  return agent(value, false);
}

/**
 * The statement as the schema of `version` would give it back, when it is valid and of a common
 * shape; null when it is anything else (the schema then decides).
 */
export function commonStatement(value: unknown, version: XapiVersion): Statement | null {
  const input = plainWith(value, STATEMENT_KEYS);
  if (!input || input.actor === undefined || input.verb === undefined || input.object === undefined) return null;
  const out = copyMembers(input, STATEMENT_CHECKS[version]);
  if (!out) return null;
  const objectType = (out.object as Obj).objectType;
  // §2.3.2.s2.b2: a voiding statement's object is a StatementRef.
  if ((out.verb as Obj).id === VOIDED_VERB_ID && objectType !== 'StatementRef') return null;
  // §2.4.6.s4.b2/b3: revision and platform only when the object is an Activity.
  const ctx = out.context as Obj | undefined;
  if (ctx && (ctx.revision !== undefined || ctx.platform !== undefined) && objectType !== undefined && objectType !== 'Activity') return null;
  return out as Statement;
}
