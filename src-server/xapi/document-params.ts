/**
 * The query parameters of the document resources (xAPI 1.0.3 Part Three §2.3 State, §2.6 Agent
 * Profile, §2.7 Activity Profile; 2.0.0 §4.1.6.2, §4.1.6.5, §4.1.6.6), per resource and method.
 * The result names one document (a key) or a set of them (multiple-document GET and, for State
 * only, DELETE). Issues name the parameter at fault; the HTTP layer answers 400.
 *
 * - A parameter the resource does not define, or one written in another case, is rejected
 *   (1.0.3 §3.2.s3.b7/b8; 2.0.0 §4.1.5).
 * - `since` only lists ids: with a stateId/profileId it is "Not Allowed" (2.0.0 §4.1.6.2 table).
 * - Without `registration`, a State set means every registration of that activity and agent
 *   ("Activity + Agent [+ registration if specified]"); a single State document without one is
 *   the document stored without one.
 */
import { parseAgentParam } from './agent-key';
import { isIri, isUuid } from './formats';
import { describeValue, type XapiIssue } from './issue';
import { unknownParameterIssue } from './query-params';
import { toUtcIso } from './timestamp';
import type { XapiVersion } from './version';

export type DocumentResource = 'state' | 'activityProfile' | 'agentProfile';
export type DocumentMethod = 'GET' | 'PUT' | 'POST' | 'DELETE';

interface DocumentKeyParams {
  kind: DocumentResource;
  activityId: string | null;
  /** Canonical agent key (agent-key.ts). */
  agent: string | null;
  registration: string | null;
  id: string;
}

interface DocumentSetParams {
  kind: DocumentResource;
  activityId: string | null;
  agent: string | null;
  /** Absent: any registration. */
  registration?: string;
  /** UTC ISO 8601, exclusive lower bound on the last update. */
  since?: string;
}

export type DocumentTarget = { one: true; key: DocumentKeyParams } | { one: false; set: DocumentSetParams };

export type DocumentParamsResult = { ok: true; target: DocumentTarget } | { ok: false; issue: XapiIssue };

interface ResourceParams {
  /** The name of the document id parameter. */
  idParam: 'stateId' | 'profileId';
  usesActivity: boolean;
  usesAgent: boolean;
  usesRegistration: boolean;
  /** Whether DELETE without the id deletes the whole set (State) instead of being refused. */
  deletesSets: boolean;
  /** How error messages name the resource. */
  label: string;
}

const DOCUMENT_RESOURCES: Record<DocumentResource, ResourceParams> = {
  state: { idParam: 'stateId', usesActivity: true, usesAgent: true, usesRegistration: true, deletesSets: true, label: 'the State Resource' },
  activityProfile: {
    idParam: 'profileId',
    usesActivity: true,
    usesAgent: false,
    usesRegistration: false,
    deletesSets: false,
    label: 'the Activity Profile Resource',
  },
  agentProfile: {
    idParam: 'profileId',
    usesActivity: false,
    usesAgent: true,
    usesRegistration: false,
    deletesSets: false,
    label: 'the Agent Profile Resource',
  },
};

class ParamIssue extends Error {
  constructor(readonly issue: XapiIssue) {
    super(issue.message);
  }
}

function fail(field: string, message: string): never {
  throw new ParamIssue({ field, message });
}

/** Parses the parameters of one request; values that are undefined count as absent. */
export function parseDocumentParams(
  resource: DocumentResource,
  method: DocumentMethod,
  params: Record<string, string | undefined>,
  version: XapiVersion,
): DocumentParamsResult {
  const spec = DOCUMENT_RESOURCES[resource];
  try {
    const known = [
      ...(spec.usesActivity ? ['activityId'] : []),
      ...(spec.usesAgent ? ['agent'] : []),
      ...(spec.usesRegistration ? ['registration'] : []),
      spec.idParam,
      ...(method === 'GET' ? ['since'] : []),
    ];
    const unknown = unknownParameterIssue(params, known, `${method} on ${spec.label}`);
    if (unknown) throw new ParamIssue(unknown);
    const value = (name: string): string | undefined => (Object.hasOwn(params, name) ? params[name] : undefined);

    const activityId = spec.usesActivity ? parseActivityId(value('activityId')) : null;
    const agent = spec.usesAgent ? parseAgent(value('agent')) : null;
    const registration = spec.usesRegistration ? parseRegistration(value('registration')) : undefined;
    const id = value(spec.idParam);
    const since = value('since');

    if (id === undefined) {
      const setAllowed = method === 'GET' || (method === 'DELETE' && spec.deletesSets);
      if (!setAllowed) {
        fail(spec.idParam, `${spec.idParam} is required: ${method} on ${spec.label} acts on one document, named by ${spec.idParam}`);
      }
      const set: DocumentSetParams = { kind: resource, activityId, agent };
      if (registration !== undefined) set.registration = registration;
      if (since !== undefined) set.since = parseSince(since, version);
      return { ok: true, target: { one: false, set } };
    }
    if (id === '') fail(spec.idParam, `${spec.idParam} must not be empty`);
    if (since !== undefined) {
      fail('since', `since cannot be used with ${spec.idParam}: since only limits the list of ids returned when ${spec.idParam} is left out`);
    }
    return { ok: true, target: { one: true, key: { kind: resource, activityId, agent, registration: registration ?? null, id } } };
  } catch (error) {
    if (error instanceof ParamIssue) return { ok: false, issue: error.issue };
    throw error;
  }
}

function parseActivityId(value: string | undefined): string {
  if (value === undefined) fail('activityId', 'activityId is required: the IRI of the Activity the document belongs to');
  if (!isIri(value)) {
    fail('activityId', `activityId must be an IRI with a scheme, such as "http://example.com/courses/module-1", got ${describeValue(value)}`);
  }
  return value;
}

function parseAgent(value: string | undefined): string {
  if (value === undefined) {
    fail('agent', 'agent is required: the JSON of the Agent the document belongs to, such as {"mbox": "mailto:ada@example.com"}');
  }
  const parsed = parseAgentParam(value);
  if (!parsed.ok) throw new ParamIssue(parsed.issue);
  return parsed.key;
}

function parseRegistration(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isUuid(value)) {
    fail('registration', `registration must be a UUID such as "f8c4f2a6-62f0-4f0a-9a6e-2b4f1c7f2d3e", got ${describeValue(value)}`);
  }
  return value.toLowerCase();
}

function parseSince(value: string, version: XapiVersion): string {
  const utc = toUtcIso(value, version);
  if (utc === null) {
    const zone = version === '2.0.0' ? ' with a time zone' : '';
    fail('since', `since must be an ISO 8601 timestamp${zone}, such as "2024-05-01T09:30:00.000Z", got ${describeValue(value)}`);
  }
  return utc;
}
