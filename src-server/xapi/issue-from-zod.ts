/**
 * Turns zod's issues for one statement into the single XapiIssue a client sees: the first fault,
 * with a dotted field path and a sentence that names the field, what was expected and what came.
 *
 * It reads the schema conventions of statement-schema.ts (message phrases, KIND_MARK) and the
 * statement as received (to quote the offending value, and to give paths as the client wrote
 * them: a single contextActivities object is `parent.id`, not `parent[0].id`).
 */

import type { z } from 'zod';
import { describeValue, formatPath } from './issue';
import type { PathSegment, XapiIssue } from './issue';
import { KIND_MARK } from './statement-schema';

type ZodIssue = z.core.$ZodIssue;

/** Every property name xAPI defines, to suggest the right case for a wrong-case key. */
const KNOWN_PROPERTIES = [
  'id', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'stored', 'authority', 'version', 'attachments',
  'objectType', 'name', 'mbox', 'mbox_sha1sum', 'openid', 'account', 'homePage', 'member', 'display', 'definition',
  'description', 'type', 'moreInfo', 'interactionType', 'correctResponsesPattern', 'choices', 'scale', 'source',
  'target', 'steps', 'extensions', 'score', 'scaled', 'raw', 'min', 'max', 'success', 'completion', 'response',
  'duration', 'registration', 'instructor', 'team', 'contextActivities', 'parent', 'grouping', 'category', 'other',
  'revision', 'platform', 'language', 'statement', 'contextAgents', 'contextGroups', 'agent', 'group',
  'relevantTypes', 'usageType', 'contentType', 'length', 'sha2', 'fileUrl',
];
const KNOWN_BY_LOWER = new Map(KNOWN_PROPERTIES.map((name) => [name.toLowerCase(), name]));

const AGENT_KEYS = ['mbox', 'mbox_sha1sum', 'openid', 'account', 'member'];

function isObjectLike(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function ownValue(container: unknown, key: PropertyKey): unknown {
  if (!isObjectLike(container) || typeof key === 'symbol') return undefined;
  return Object.hasOwn(container, key) ? (container as Record<PropertyKey, unknown>)[key] : undefined;
}

/** The path as the client wrote it, and the value found there. */
function resolve(root: unknown, path: readonly PropertyKey[]): { segments: PathSegment[]; value: unknown } {
  const segments: PathSegment[] = [];
  let current: unknown = root;
  for (const key of path) {
    // A lone object normalised to a one-item array (contextActivities) has no index in the input.
    if (typeof key === 'number' && !Array.isArray(current)) continue;
    segments.push(typeof key === 'number' ? key : String(key));
    current = ownValue(current, key);
  }
  return { segments, value: current };
}

const EXPECTED_PHRASES: Record<string, string> = {
  string: 'must be a string',
  number: 'must be a number',
  int: 'must be a whole number',
  boolean: 'must be true or false',
  object: 'must be a JSON object',
  array: 'must be an array',
  record: 'must be a JSON object',
};

function withReceived(field: string, phrase: string, value: unknown): string {
  const subject = field === '' ? 'the statement' : field;
  const addGot = phrase.startsWith('must') && !phrase.includes(' got ');
  return addGot ? `${subject} ${phrase}, got ${describeValue(value)}` : `${subject} ${phrase}`;
}

function isMissing(issue: ZodIssue, root: unknown): boolean {
  return issue.code === 'invalid_type' && resolve(root, issue.path).value === undefined;
}

/**
 * The issue to report. zod lists issues in schema order (id, actor, verb, object, ...), which is
 * the order a person reads a statement in, so the first is usually the one to fix. One exception:
 * a required property reported missing because it was sent with the wrong case (`Actor`) is
 * better reported as that wrong-case property.
 */
function pickIssue(issues: readonly ZodIssue[], root: unknown): { issue: ZodIssue; key?: string } | null {
  const first = issues[0];
  if (!first) return null;
  if (isMissing(first, root) && first.path.length > 0) {
    const missingKey = String(first.path[first.path.length - 1]).toLowerCase();
    const parentPath = first.path.slice(0, -1);
    for (const issue of issues) {
      if (issue.code !== 'unrecognized_keys' || issue.path.length !== parentPath.length) continue;
      if (!issue.path.every((segment, i) => segment === parentPath[i])) continue;
      const key = issue.keys.find((candidate) => candidate.toLowerCase() === missingKey);
      if (key !== undefined) return { issue, key };
    }
  }
  return { issue: first };
}

function extraPropertyHint(kind: string, key: string): string {
  const known = KNOWN_BY_LOWER.get(key.toLowerCase());
  if (known !== undefined && known !== key) return ` (property names are case-sensitive: did you mean "${known}"?)`;
  if (kind === 'a SubStatement' && ['id', 'stored', 'version', 'authority'].includes(key)) {
    return ' (a SubStatement has no id, stored, version or authority)';
  }
  if (kind === 'an Agent' && key === 'member') return ' (only a Group has members; use objectType "Group")';
  return '';
}

/** The one issue to report for a statement that failed `schema.safeParse(root)`. */
export function issueFromZod(issues: readonly ZodIssue[], root: unknown): XapiIssue {
  const picked = pickIssue(issues, root);
  if (!picked) return { field: '', message: 'the statement is not valid' };
  const { issue } = picked;
  const { segments, value } = resolve(root, issue.path);
  const field = formatPath(segments);

  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = picked.key ?? issue.keys[0] ?? '';
      const kind = issue.message.startsWith(KIND_MARK) ? issue.message.slice(KIND_MARK.length) : 'this object';
      return {
        field: formatPath([...segments, key]),
        message: `extra property "${key}" not allowed in ${kind}${extraPropertyHint(kind, key)}`,
      };
    }
    case 'invalid_type': {
      if (value === undefined) {
        const parentPath = issue.path.slice(0, -1);
        const parent = resolve(root, parentPath);
        const last = issue.path[issue.path.length - 1];
        // {"mbox": ...} as an object without objectType reads as an Activity, which needs an id.
        if (last === 'id' && isObjectLike(parent.value) && AGENT_KEYS.some((key) => ownValue(parent.value, key) !== undefined)) {
          const objectTypeField = formatPath([...parent.segments, 'objectType']);
          return {
            field: objectTypeField,
            message: `${objectTypeField} is required: an Agent or Group used as an object must say objectType "Agent" or "Group" (without it, the object is read as an Activity, which needs an id)`,
          };
        }
        return { field, message: field === '' ? 'a statement is required' : `${field} is required` };
      }
      if (value === null) return { field, message: `${field || 'the statement'} must not be null (leave the property out instead)` };
      if (field === '') return { field, message: `each statement must be a JSON object, got ${describeValue(value)}` };
      const phrase = issue.message.startsWith('must') ? issue.message : (EXPECTED_PHRASES[issue.expected] ?? `must be ${issue.expected}`);
      return { field, message: withReceived(field, phrase, value) };
    }
    case 'invalid_key': {
      const key = String(segments[segments.length - 1] ?? '');
      const parentField = formatPath(segments.slice(0, -1));
      const expected = issue.issues[0]?.message ?? 'a valid key';
      return { field, message: `${parentField} has the key "${key}", which is not ${expected}` };
    }
    case 'custom': {
      if (issue.message === 'is not an allowed key') {
        return { field, message: `${formatPath(segments.slice(0, -1))} has the key "__proto__", which is not allowed` };
      }
      return { field, message: withReceived(field, issue.message, value) };
    }
    default: {
      if (value === undefined) {
        const expected = issue.message.startsWith('must') ? `: it ${issue.message}` : '';
        return { field, message: `${field} is required${expected}` };
      }
      const phrase = issue.message.startsWith('must') || issue.message.startsWith('is ') ? issue.message : `is not valid (${issue.message})`;
      return { field, message: withReceived(field, phrase, value) };
    }
  }
}
