/**
 * The query parameters of GET statements (xAPI 1.0.3 Part Three §2.1.3; 2.0.0 the same section),
 * checked "to the same standards required for values of the same types in Statements" (Part Two
 * §2.2.s4.b4). Issues name the parameter in `field`.
 */

import { parseAgentParam } from './agent-key';
import { describeValue } from './issue';
import type { XapiIssue } from './issue';
import { isIri, isUuid } from './formats';
import { toUtcIso } from './timestamp';
import type { StatementFormat } from './format-statement';
import type { XapiVersion } from './version';

;

/** The most statements one page holds; a larger limit is capped here. */
const MAX_STATEMENT_LIMIT = 500;

export interface ParsedStatementQuery {
  /** Lower-cased UUID. */
  statementId?: string;
  /** Lower-cased UUID. */
  voidedStatementId?: string;
  /** The agent filter as its canonical key (agent-key.ts). */
  agent?: string;
  verb?: string;
  activity?: string;
  /** Lower-cased UUID. */
  registration?: string;
  relatedActivities: boolean;
  relatedAgents: boolean;
  /** ISO 8601 in UTC with milliseconds; exclusive lower bound on stored. */
  since?: string;
  /** ISO 8601 in UTC with milliseconds; inclusive upper bound on stored. */
  until?: string;
  /** 0 asks for the server's maximum; otherwise at most MAX_STATEMENT_LIMIT. */
  limit: number;
  format: StatementFormat;
  attachments: boolean;
  ascending: boolean;
}

export type StatementQueryResult = { ok: true; query: ParsedStatementQuery } | { ok: false; issue: XapiIssue };

const PARAMETERS = [
  'statementId', 'voidedStatementId', 'agent', 'verb', 'activity', 'registration', 'related_activities',
  'related_agents', 'since', 'until', 'limit', 'format', 'attachments', 'ascending',
] as const;
type Parameter = (typeof PARAMETERS)[number];
const KNOWN = new Set<string>(PARAMETERS);
/** §2.1.3.s2.b2: with statementId or voidedStatementId, only these may also be given. */
const ALLOWED_WITH_ID = new Set<string>(['statementId', 'voidedStatementId', 'format', 'attachments']);

class QueryIssue extends Error {
  constructor(readonly issue: XapiIssue) {
    super(issue.message);
  }
}

function fail(field: string, message: string): never {
  throw new QueryIssue({ field, message });
}

function got(value: string): string {
  return describeValue(value);
}

function parseBoolean(name: Parameter, value: string | undefined): boolean {
  if (value === undefined) return false;
  // "The values of Boolean parameters are represented as true or false as in JSON."
  if (value === 'true') return true;
  if (value === 'false') return false;
  return fail(name, `${name} must be true or false, got ${got(value)}`);
}

function parseUuid(name: Parameter, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isUuid(value)) fail(name, `${name} must be a UUID such as "f8c4f2a6-62f0-4f0a-9a6e-2b4f1c7f2d3e", got ${got(value)}`);
  return value.toLowerCase();
}

function parseIri(name: Parameter, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isIri(value)) fail(name, `${name} must be an IRI with a scheme, such as "http://adlnet.gov/expapi/verbs/completed", got ${got(value)}`);
  return value;
}

function parseTime(name: Parameter, value: string | undefined, version: XapiVersion): string | undefined {
  if (value === undefined) return undefined;
  const utc = toUtcIso(value, version);
  if (utc === null) {
    const zone = version === '2.0.0' ? ' with a time zone' : '';
    fail(name, `${name} must be an ISO 8601 timestamp${zone}, such as "2024-05-01T09:30:00.000Z", got ${got(value)}`);
  }
  return utc;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 0;
  if (!/^\d+$/u.test(value)) fail('limit', `limit must be a whole number of 0 or more (0 means as many as the server allows), got ${got(value)}`);
  const limit = Number(value);
  return Math.min(limit, MAX_STATEMENT_LIMIT);
}

function parseFormat(value: string | undefined): StatementFormat {
  if (value === undefined) return 'exact';
  if (value === 'ids' || value === 'exact' || value === 'canonical') return value;
  return fail('format', `format must be "ids", "exact" or "canonical", got ${got(value)}`);
}

function parseAgent(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseAgentParam(value);
  if (!parsed.ok) throw new QueryIssue(parsed.issue);
  return parsed.key;
}

/** Parses the query of GET /statements; parameters whose value is undefined count as absent. */
export function parseStatementQuery(params: Record<string, string | undefined>, version: XapiVersion): StatementQueryResult {
  try {
    const given = Object.keys(params).filter((name) => params[name] !== undefined);
    const unknown = given.find((name) => !KNOWN.has(name));
    if (unknown !== undefined) {
      const hint = PARAMETERS.find((name) => name.toLowerCase() === unknown.toLowerCase());
      fail(
        unknown,
        `${unknown} is not a parameter of GET statements${hint ? ` (parameter names are case-sensitive: did you mean "${hint}"?)` : ''}`,
      );
    }
    const value = (name: Parameter): string | undefined => (Object.hasOwn(params, name) ? params[name] : undefined);

    // §2.1.3.s2.b1 and b2: one statement by id, with nothing else but format and attachments.
    const idParam = value('statementId') !== undefined ? 'statementId' : value('voidedStatementId') !== undefined ? 'voidedStatementId' : null;
    if (value('statementId') !== undefined && value('voidedStatementId') !== undefined) {
      fail('voidedStatementId', 'voidedStatementId cannot be used together with statementId: ask for one statement at a time');
    }
    if (idParam !== null) {
      const other = given.find((name) => !ALLOWED_WITH_ID.has(name));
      if (other !== undefined) {
        fail(other, `${other} cannot be used with ${idParam}: when fetching one statement, only format and attachments may be added`);
      }
    }

    const query: ParsedStatementQuery = {
      statementId: parseUuid('statementId', value('statementId')),
      voidedStatementId: parseUuid('voidedStatementId', value('voidedStatementId')),
      agent: parseAgent(value('agent')),
      verb: parseIri('verb', value('verb')),
      activity: parseIri('activity', value('activity')),
      registration: parseUuid('registration', value('registration')),
      relatedActivities: parseBoolean('related_activities', value('related_activities')),
      relatedAgents: parseBoolean('related_agents', value('related_agents')),
      since: parseTime('since', value('since'), version),
      until: parseTime('until', value('until'), version),
      limit: parseLimit(value('limit')),
      format: parseFormat(value('format')),
      attachments: parseBoolean('attachments', value('attachments')),
      ascending: parseBoolean('ascending', value('ascending')),
    };
    const defined = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
    return { ok: true, query: defined as unknown as ParsedStatementQuery };
  } catch (error) {
    if (error instanceof QueryIssue) return { ok: false, issue: error.issue };
    return { ok: false, issue: { field: '', message: 'the query could not be read' } };
  }
}
