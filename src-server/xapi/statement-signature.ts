/**
 * A hash of what makes a statement "the same statement" (xAPI 1.0.3 Part Two §2.3.1 Statement
 * Comparison Requirements): "Differences which could have been caused by exceptions to Statement
 * immutability MUST be ignored"; every other difference counts. Two statements the spec calls the
 * same get the same signature, so a re-sent statement is answered 204/200, a different one with
 * the same id 409 (Part Three §2.1.2.s2.b5). The HTTP layer can compare a signed statement with
 * its JWS payload the same way (Part Two §2.6).
 *
 * Ignored, per the exceptions of §2.3.1:
 * - b1: the properties the LRS may assign: id, authority, stored, timestamp, version;
 * - b2: Activity definitions, wherever an Activity appears (only its id identifies it);
 * - b3: a Verb's display;
 * - b4: the serialisation of timestamps (a SubStatement's timestamp is compared as an instant);
 * - b5: the order of a Group's members;
 * - b6: attachments' raw data; the JWS signature attachment too (it is a signature of the
 *   statement, not content: a signed and an unsigned copy are the same statement);
 * - b7: case where it carries no meaning: UUIDs, mbox scheme and domain, SHA digests, language tags;
 * - property order, and whether a single contextActivities Activity came as an array.
 * Result duration is compared as a string (b8), except that 2.0.0 §4.6 ignores precision beyond
 * 0.01 s ("PT1.2345S" equals "PT1.23S"); that is applied for both versions, since the stored
 * signature cannot know which rule set a later copy will arrive under.
 */

import { createHash } from 'node:crypto';
import { normaliseMbox } from './agent-key';
import { toUtcIso } from './timestamp';
import type { Statement } from './statement-schema';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;

const SIGNATURE_USAGE_TYPE = 'http://adlnet.gov/expapi/attachments/signature';
const LRS_ASSIGNED = new Set(['id', 'authority', 'stored', 'timestamp', 'version']);
/** Far beyond a validated statement (extension values are bounded at 64 levels). */
const MAX_DEPTH = 512;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets a member of a copy. A plain object, not one without a prototype (those are hash tables to
 * V8, slower to fill and to read); a member named "__proto__" is defined, so it stays a member
 * rather than setting the prototype.
 */
function setMember(out: Obj, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * A copy of `value` with the listed keys replaced; keys mapped to undefined are dropped. (A plain
 * loop: this runs for every object of every statement written.)
 */
function withChanges(value: Obj, changes: Obj, drop?: ReadonlySet<string>): Obj {
  const out: Obj = {};
  for (const key of Object.keys(value)) {
    if (drop?.has(key)) continue;
    const v = Object.hasOwn(changes, key) ? changes[key] : value[key];
    if (v !== undefined) setMember(out, key, v);
  }
  return out;
}

function lower(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

function lowerKeys(map: unknown): unknown {
  if (!isObj(map)) return map;
  const out: Obj = {};
  for (const key of Object.keys(map)) setMember(out, key.toLowerCase(), map[key]);
  return out;
}

function canonicalActor(actor: unknown): unknown {
  if (!isObj(actor)) return actor;
  const changes: Obj = {
    // objectType "Agent" is the default where it may be left out: with or without, the same Agent.
    objectType: actor.objectType === 'Agent' ? undefined : actor.objectType,
    mbox: typeof actor.mbox === 'string' ? normaliseMbox(actor.mbox) : actor.mbox,
    mbox_sha1sum: lower(actor.mbox_sha1sum),
  };
  if (Array.isArray(actor.member)) {
    const members = actor.member.map(canonicalActor);
    changes.member = members
      .map((member) => ({ member, text: canonicalJson(member) }))
      .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
      .map(({ member }) => member);
  }
  return withChanges(actor, changes);
}

/** An Activity is identified by its id alone (§2.3.1.b2); "Activity" is the default objectType. */
function canonicalActivity(activity: unknown): unknown {
  return isObj(activity) ? { id: activity.id } : activity;
}

function canonicalStatementRef(ref: unknown): unknown {
  return isObj(ref) ? withChanges(ref, { id: lower(ref.id) }) : ref;
}

function canonicalObject(object: unknown): unknown {
  if (!isObj(object)) return object;
  switch (object.objectType) {
    case undefined:
    case 'Activity':
      return canonicalActivity(object);
    case 'Agent':
    case 'Group':
      // Keep objectType here: as an object it is required, and it tells an Agent from an Activity.
      return withChanges(canonicalActor(object) as Obj, { objectType: object.objectType });
    case 'StatementRef':
      return canonicalStatementRef(object);
    case 'SubStatement':
      return canonicalBody(object, true);
    default:
      return object;
  }
}

function canonicalDuration(duration: unknown): unknown {
  if (typeof duration !== 'string') return duration;
  return duration.replace(/(\d+)[.,](\d+)S$/u, (_, whole: string, fraction: string) => {
    const kept = fraction.slice(0, 2).replace(/0+$/u, '');
    return kept === '' ? `${whole}S` : `${whole}.${kept}S`;
  });
}

function canonicalResult(result: unknown): unknown {
  return isObj(result) ? withChanges(result, { duration: canonicalDuration(result.duration) }) : result;
}

function canonicalActivityList(list: unknown): unknown {
  if (isObj(list)) return [canonicalActivity(list)];
  return Array.isArray(list) ? list.map(canonicalActivity) : list;
}

function canonicalContext(context: unknown): unknown {
  if (!isObj(context)) return context;
  const activities = context.contextActivities;
  return withChanges(context, {
    registration: lower(context.registration),
    instructor: canonicalActor(context.instructor),
    team: canonicalActor(context.team),
    language: lower(context.language),
    statement: canonicalStatementRef(context.statement),
    contextActivities: isObj(activities)
      ? Object.fromEntries(Object.entries(activities).map(([key, list]) => [key, canonicalActivityList(list)]))
      : activities,
    contextAgents: Array.isArray(context.contextAgents)
      ? context.contextAgents.map((item: unknown) => (isObj(item) ? withChanges(item, { agent: canonicalActor(item.agent) }) : item))
      : context.contextAgents,
    contextGroups: Array.isArray(context.contextGroups)
      ? context.contextGroups.map((item: unknown) => (isObj(item) ? withChanges(item, { group: canonicalActor(item.group) }) : item))
      : context.contextGroups,
  });
}

function canonicalAttachments(attachments: unknown): unknown {
  if (!Array.isArray(attachments)) return attachments;
  const kept = attachments
    .filter((attachment: unknown) => !(isObj(attachment) && attachment.usageType === SIGNATURE_USAGE_TYPE))
    .map((attachment: unknown) =>
      isObj(attachment)
        ? withChanges(attachment, {
            display: lowerKeys(attachment.display),
            description: lowerKeys(attachment.description),
            sha2: lower(attachment.sha2),
          })
        : attachment,
    );
  return kept.length === 0 ? undefined : kept;
}

function canonicalTimestamp(value: unknown): unknown {
  // The instant, not its serialisation (§2.3.1.b4); a zone-less time reads as UTC.
  return typeof value === 'string' ? (toUtcIso(value, '1.0.3') ?? value) : value;
}

/** A Statement, or (inner = true) a SubStatement, which keeps its timestamp as an instant. */
function canonicalBody(statement: Obj, inner: boolean): Obj {
  const verb = statement.verb;
  return withChanges(
    statement,
    {
      actor: canonicalActor(statement.actor),
      verb: isObj(verb) ? { id: verb.id } : verb,
      object: canonicalObject(statement.object),
      result: canonicalResult(statement.result),
      context: canonicalContext(statement.context),
      attachments: canonicalAttachments(statement.attachments),
      ...(inner ? { timestamp: canonicalTimestamp(statement.timestamp) } : {}),
    },
    inner ? new Set() : LRS_ASSIGNED,
  );
}

/**
 * A string as JSON. Most keys and values need no escaping, and checking costs less than the call:
 * a quote, a backslash, a control character or a surrogate (JSON.stringify escapes a lone one)
 * goes to JSON.stringify.
 */
function jsonString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

/**
 * canonicalJson written out value by value: what the copy below cannot do (keys it cannot place
 * in order, values that are not plain JSON) is written here. canonicalJson gives the same text
 * either way (test/xapi/statement-signature.test.ts compares them).
 */
export function canonicalJsonByWalk(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw new RangeError(`value nests deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'string') return jsonString(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      const item: unknown = value[i];
      out += canonicalJsonByWalk(item === undefined ? null : item, depth + 1);
    }
    return `${out}]`;
  }
  if (isObj(value)) {
    const keys = Object.keys(value).sort();
    let out = '{';
    let first = true;
    for (const key of keys) {
      const member = value[key];
      if (member === undefined) continue;
      out += `${first ? '' : ','}${jsonString(key)}:${canonicalJsonByWalk(member, depth + 1)}`;
      first = false;
    }
    return `${out}}`;
  }
  return JSON.stringify(value as Json) ?? 'null';
}

/** Thrown by sortedCopy for what only the walk writes. */
const WALK_INSTEAD = Symbol('walk instead');

/**
 * A copy of `value` whose objects have their keys inserted in sorted order, for JSON.stringify to
 * write: its native serialisation is several times faster than a walk in JavaScript. Throws
 * WALK_INSTEAD where the copy would not give the walk's text: a key JavaScript enumerates first
 * whatever the insertion order (array-index keys; any key starting with a digit is left to the
 * walk), a "__proto__" key (assigning it would set the prototype), and anything but plain JSON
 * values (functions, class instances, symbols: JSON.stringify writes those differently).
 */
function sortedCopy(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new RangeError(`value nests deeper than ${MAX_DEPTH} levels`);
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'undefined':
      return value;
    case 'object':
      break;
    default:
      throw WALK_INSTEAD;
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      items[i] = item === undefined ? null : sortedCopy(item, depth + 1);
    }
    return items;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw WALK_INSTEAD;
  const keys = Object.keys(value);
  sortKeys(keys);
  const out: Obj = {};
  for (const key of keys) {
    const first = key.charCodeAt(0);
    if ((first >= 0x30 && first <= 0x39) || key === '__proto__') throw WALK_INSTEAD;
    const member = (value as Obj)[key];
    if (member !== undefined) out[key] = sortedCopy(member, depth + 1);
  }
  return out;
}

/**
 * Sorts keys in place by UTF-16 code units, as Array.prototype.sort does by default: an insertion
 * sort, faster than the generic sort for the few keys of a statement's objects (the generic sort
 * past a few dozen, where an insertion sort would grow quadratically).
 */
function sortKeys(keys: string[]): void {
  if (keys.length > 32) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = key;
  }
}

/** JSON with object keys sorted and no whitespace: one text per value. */
export function canonicalJson(value: unknown): string {
  let copy: unknown;
  try {
    copy = sortedCopy(value, 0);
  } catch (err) {
    if (err === WALK_INSTEAD) return canonicalJsonByWalk(value);
    throw err;
  }
  return JSON.stringify(copy) ?? 'null';
}

/**
 * sha256 (hex) of the canonical form of a statement. Accepts a validated or a prepared statement,
 * or a JWS payload not yet validated: it reads only what is there and never assumes a shape.
 */
export function statementSignature(statement: Statement | Record<string, unknown>): string {
  const canonical = isObj(statement) ? canonicalBody(statement, false) : statement;
  return createHash('sha256').update(canonicalJson(canonical)).digest('hex');
}
