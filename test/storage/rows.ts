/**
 * Small builders of the plain records the Storage interface takes. Statement rows are made by
 * hand here (not by src-server/xapi) so the storage tests pin storage behaviour only.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord, IndexTerm, RejectionRow, StatementRow, StoreRecord } from '../../src-server/storage/storage';

const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided';
export const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed';
export const ATTEMPTED = 'http://adlnet.gov/expapi/verbs/attempted';
/** Canonical agent keys. */
export const ALICE = 'mbox:mailto:alice@example.com';
export const BOB = 'mbox:mailto:bob@example.com';
export const COURSE = 'http://example.com/course/1';
export const MODULE = 'http://example.com/course/1/module/2';
export const BASE_TIME = Date.parse('2024-05-01T10:00:00.000Z');
const LMS = 'https://lms.example.com';

let sequence = 0;

/** An ISO time `seconds` after BASE_TIME. */
export function at(seconds: number): string {
  return new Date(BASE_TIME + seconds * 1000).toISOString();
}

export function makeStore(overrides: Partial<StoreRecord> = {}): StoreRecord {
  const n = ++sequence;
  return {
    id: randomUUID(),
    slug: `store-${n}`,
    name: `Store ${n}`,
    environment: 'test',
    createdAt: at(n),
    updatedAt: at(n),
    ...overrides,
  };
}

export function makeApiKey(storeId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  const n = ++sequence;
  return {
    id: `lore_test_${n}_${randomUUID().slice(0, 8)}`,
    storeId,
    name: `Key ${n}`,
    secretHash: 'ab'.repeat(32),
    scopes: ['statements/write', 'statements/read'],
    environment: 'test',
    createdAt: at(n),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
    ...overrides,
  };
}

export interface StatementSpec {
  id?: string;
  /** Canonical agent key of the actor. */
  actor?: string;
  verb?: string;
  /** Object activity id. */
  activity?: string;
  registration?: string | null;
  /** Seconds after BASE_TIME. */
  storedAt?: number;
  keyId?: string;
  /** Non-primary agents (context instructor, authority, ...). */
  relatedAgents?: string[];
  /** Non-primary activities (context parent, grouping, ...). */
  relatedActivities?: string[];
  /** Makes a voiding statement of this id. */
  voids?: string;
  /** A different value makes a "same id, different content" statement. */
  variant?: string;
  /** The actor's name. */
  actorName?: string;
  /** The actor as an account of lms.example.com with this name (its key: `account:https://lms.example.com|<name>`). */
  accountName?: string;
  /** The verb's display. */
  verbDisplay?: Record<string, string>;
  /** The object Activity's definition name (the statement carries the definition). */
  activityName?: Record<string, string>;
  attachments?: StatementRow['attachments'];
}

export function makeStatement(spec: StatementSpec = {}): StatementRow {
  const id = spec.id ?? randomUUID();
  const actor = spec.accountName !== undefined ? `account:${LMS}|${spec.accountName}` : (spec.actor ?? 'mbox:mailto:learner@example.com');
  const verb = spec.voids ? VOIDED_VERB : (spec.verb ?? 'http://adlnet.gov/expapi/verbs/completed');
  const activity = spec.activity ?? 'http://example.com/course/1';
  const stored = at(spec.storedAt ?? 0);
  const terms: IndexTerm[] = [{ kind: 'agent', value: actor, primary: true }];
  if (!spec.voids) terms.push({ kind: 'activity', value: activity, primary: true });
  for (const value of spec.relatedAgents ?? []) terms.push({ kind: 'agent', value, primary: false });
  for (const value of spec.relatedActivities ?? []) terms.push({ kind: 'activity', value, primary: false });
  const object = spec.voids ? { objectType: 'StatementRef', id: spec.voids } : { objectType: 'Activity', id: activity };
  const actorJson: Record<string, unknown> =
    spec.accountName !== undefined ? { account: { homePage: LMS, name: spec.accountName } } : { mbox: actor.replace(/^mbox:/, '') };
  if (spec.actorName !== undefined) actorJson.name = spec.actorName;
  const statement: Record<string, unknown> = {
    id,
    actor: actorJson,
    verb: spec.verbDisplay ? { id: verb, display: spec.verbDisplay } : { id: verb },
    object: spec.activityName ? { ...object, definition: { name: spec.activityName } } : object,
    stored,
    timestamp: stored,
    version: '1.0.3',
    ...(spec.variant ? { result: { response: spec.variant } } : {}),
  };
  return {
    statementId: id,
    statement,
    signature: JSON.stringify([actor, verb, object, spec.variant ?? null]),
    stored,
    keyId: spec.keyId ?? 'lore_test_key',
    verbId: verb,
    registration: spec.registration ?? null,
    voidsStatementId: spec.voids ?? null,
    terms,
    ...(spec.attachments ? { attachments: spec.attachments } : {}),
    ...(spec.activityName && !spec.voids ? { activityDefinitions: [{ activityId: activity, definition: { name: spec.activityName } }] } : {}),
  };
}

export interface RejectionSpec {
  agent?: string | null;
  verb?: string | null;
  activity?: string | null;
  /** Seconds after BASE_TIME. */
  receivedAt?: number;
  statementId?: string | null;
}

export function makeRejection(spec: RejectionSpec = {}): RejectionRow {
  return {
    receivedAt: at(spec.receivedAt ?? 0),
    keyId: 'lore_test_key',
    statementId: spec.statementId ?? null,
    payload: { actor: { mbox: 'learner@example.com' }, verb: { id: spec.verb ?? 'x' } },
    error: { code: 'invalid_statement', message: 'actor.mbox must start with mailto:', field: 'actor.mbox', statementIndex: 0 },
    agent: spec.agent === undefined ? 'mbox:mailto:learner@example.com' : spec.agent,
    verbId: spec.verb === undefined ? 'http://adlnet.gov/expapi/verbs/completed' : spec.verb,
    activityId: spec.activity === undefined ? 'http://example.com/course/1' : spec.activity,
  };
}
