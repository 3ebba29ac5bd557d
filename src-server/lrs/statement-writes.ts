/**
 * Receiving statements: POST (one or a batch) and PUT (one, with its id in the query).
 * xAPI 1.0.3 Part Three §2.1 / 2.0.0 Part Three §2.1. A batch is all-or-nothing; whatever is
 * refused is kept as a rejection, with the payload as received and the reason, so that the
 * Statement Explorer can show why.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord, RejectionRow, StatementRow, Storage, StoreRecord } from '../storage/storage';
import { agentKey, emailAgentKey } from '../xapi/agent-key';
import { prepareStatement } from '../xapi/prepare-statement';
import { statementWarnings, type StatementWarning } from '../xapi/statement-warnings';
import { checkStatementSignatures } from '../xapi/signed-statements';
import { checkAttachmentParts, partsOfStatement } from '../xapi/statement-attachments';
import type { AttachmentPart } from '../xapi/statement-attachments';
import { validateStatements } from '../xapi/validate-statements';
import type { XapiVersion } from '../xapi/version';
import { activityDefinitionsFor } from './activities';
import type { OperationFailure, Outcome } from './failure';
import { statementRowOf } from './statement-row';
import type { StoredClock } from './stored-clock';

const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided';

/** What a listener hears of each statement a write recorded (a StatementRow has these and more). */
export interface RecordedStatement {
  statementId: string;
  voidsStatementId: string | null;
  verbId: string;
  /** The statement as stored. */
  statement: Record<string, unknown>;
  keyId: string;
}

/**
 * Who hears what a write recorded (the console's live events: admin/live-events.ts). Declared here,
 * as what the LRS needs, so that it does not depend on the admin side that provides it. Both
 * return at once.
 */
export interface RecordedStatementListener {
  announceStatements(store: StoreRecord, rows: ReadonlyArray<RecordedStatement>, inserted: readonly string[]): void;
  announceRejections(store: StoreRecord, rows: readonly RejectionRow[]): void;
}

export interface StatementWriteContext {
  storage: Storage;
  store: StoreRecord;
  key: ApiKeyRecord;
  version: XapiVersion;
  clock: StoredClock;
  /**
   * Base URL of this service as it names itself (--public-url, else its listen address), never a
   * request's Host: the authority of a statement names the key under it, the same agent whichever
   * name the content reached the service by.
   */
  publicUrl: string;
  /** The service's live events: what the write recorded is announced there. */
  events: RecordedStatementListener;
}

/** The authority the LRS asserts for statements sent with `key` (xAPI §2.4.9). */
export function authorityFor(key: ApiKeyRecord, publicUrl: string): Record<string, unknown> {
  return { objectType: 'Agent', name: key.name, account: { homePage: publicUrl, name: key.id } };
}

export interface RecordOptions {
  /** PUT: the statementId parameter. */
  statementId?: string;
  /** The raw attachment parts of a multipart/mixed request (none for application/json). */
  attachments?: AttachmentPart[];
}

export async function recordStatements(
  ctx: StatementWriteContext,
  body: unknown,
  options: RecordOptions = {},
): Promise<Outcome<string[]>> {
  // In flight until the write is over: Consistent-Through stays below it meanwhile (stored-clock.ts).
  const stamp = ctx.clock.stamp();
  try {
    return await recordStamped(ctx, body, options, stamp.at);
  } finally {
    stamp.release();
  }
}

async function recordStamped(ctx: StatementWriteContext, body: unknown, options: RecordOptions, received: Date): Promise<Outcome<string[]>> {
  const refuse = async (failure: OperationFailure): Promise<Outcome<string[]>> => {
    await recordRejections(ctx, body, failure, received.toISOString());
    return { ok: false, failure };
  };

  if (options.statementId !== undefined) {
    const shapeFailure = checkPutBody(body, options.statementId);
    if (shapeFailure) return refuse(shapeFailure);
  } else if (!isPlainObject(body) && !Array.isArray(body)) {
    return refuse({ status: 400, code: 'invalid_statement', message: 'The body must be a statement object or an array of statements.', field: '' });
  }
  if (Array.isArray(body) && body.length === 0) {
    return refuse({ status: 400, code: 'invalid_statement', message: 'The batch is empty: send at least one statement.', field: '' });
  }

  const validation = validateStatements(body, ctx.version);
  if (!validation.ok) {
    const { issue } = validation;
    return refuse({ status: 400, code: 'invalid_statement', message: issue.message, field: issue.field, statementIndex: issue.statementIndex });
  }

  const statements = validation.statements.map((statement) =>
    options.statementId !== undefined ? { ...statement, id: options.statementId } : statement,
  );
  const batch = Array.isArray(body);
  const parts = options.attachments ?? [];
  // Part Three §1.5: the raw parts and the Attachment objects must agree.
  const attachmentIssue = checkAttachmentParts(statements, parts, batch);
  if (attachmentIssue) return refuse({ status: 400, code: 'invalid_attachment', ...attachmentIssue });
  // Part Two §2.6: a malformed signature is refused with 400.
  for (const [index, statement] of statements.entries()) {
    const signatureIssue = checkStatementSignatures(statement, parts);
    if (signatureIssue) {
      return refuse({ status: 400, code: 'invalid_signature', ...signatureIssue, statementIndex: batch ? index : undefined });
    }
  }
  const stored = received.toISOString();
  const authority = authorityFor(ctx.key, ctx.publicUrl);
  const rows: StatementRow[] = statements.map((statement, i) => {
    const attachments = partsOfStatement(statement, parts).map(({ sha2, contentType, content }) => ({ sha2, contentType, content }));
    const prepared = prepareStatement(statement, { authority, version: ctx.version, stored, newId: randomUUID });
    // The statement as the client sent it: the Statement Explorer shows it (a copy kept only when it differs).
    const sent = Array.isArray(body) ? body[i] : body;
    const idMadeByLrs = statement.id === undefined;
    return {
      ...statementRowOf(prepared, sent, { stored, keyId: ctx.key.id, activityDefinitions: activityDefinitionsFor(ctx.key, prepared), idMadeByLrs }),
      ...(attachments.length > 0 ? { attachments } : {}),
      ...withWarnings(statementWarnings(sent, ctx.version)),
    };
  });

  const voidingFailure = await checkVoidingTargets(ctx, rows);
  if (voidingFailure) return refuse(voidingFailure);

  const result = await ctx.storage.insertStatements(ctx.store.id, rows);
  if (!result.ok) {
    const { index, statementId } = result.conflict;
    return refuse({
      status: 409,
      code: 'statement_conflict',
      message: `A different statement with id ${statementId} is already stored; statements are immutable (xAPI §2.2).`,
      field: 'id',
      statementIndex: Array.isArray(body) ? index : undefined,
    });
  }
  ctx.events.announceStatements(ctx.store, rows, result.inserted); // live events for the console (returns at once)
  return { ok: true, value: rows.map((row) => row.statementId) };
}

function checkPutBody(body: unknown, statementId: string): OperationFailure | null {
  if (!isPlainObject(body)) {
    return { status: 400, code: 'invalid_statement', message: 'PUT takes one statement object (use POST for a batch).', field: '' };
  }
  const id = body.id;
  if (id !== undefined && (typeof id !== 'string' || id.toLowerCase() !== statementId.toLowerCase())) {
    return {
      status: 400,
      code: 'invalid_statement',
      message: `The statement's id must match the statementId parameter (${statementId}).`,
      field: 'id',
    };
  }
  return null;
}

/** A voiding statement cannot target another voiding statement (xAPI §2.3.2). */
async function checkVoidingTargets(ctx: StatementWriteContext, rows: StatementRow[]): Promise<OperationFailure | null> {
  const inBatch = new Map(rows.map((row) => [row.statementId, row]));
  for (const [index, row] of rows.entries()) {
    if (row.voidsStatementId === null) continue;
    const target = inBatch.get(row.voidsStatementId);
    const targetIsVoiding = target
      ? target.voidsStatementId !== null
      : isVoidingStatement((await ctx.storage.findStatement(ctx.store.id, row.voidsStatementId))?.statement);
    if (targetIsVoiding) {
      return {
        status: 400,
        code: 'invalid_statement',
        message: 'A voiding statement cannot void another voiding statement.',
        field: 'object.id',
        statementIndex: rows.length > 1 ? index : undefined,
      };
    }
  }
  return null;
}

function isVoidingStatement(statement: Record<string, unknown> | undefined): boolean {
  const verb = statement?.verb;
  return isPlainObject(verb) && verb.id === VOIDED_VERB;
}

/** Keeps every statement of a refused request, as received, with the reason. */
async function recordRejections(
  ctx: StatementWriteContext,
  body: unknown,
  failure: OperationFailure,
  receivedAt: string,
): Promise<void> {
  const payloads = Array.isArray(body) ? body : [body];
  const rows: RejectionRow[] = payloads.map((payload, index) => {
    const own = !Array.isArray(body) || failure.statementIndex === undefined || failure.statementIndex === index;
    const error = own
      ? { code: failure.code, message: failure.message, field: failure.field, statementIndex: Array.isArray(body) ? failure.statementIndex : undefined }
      : {
          code: 'batch_rejected',
          message: `Not stored: statement ${failure.statementIndex} of the same batch was refused (${failure.message})`,
          statementIndex: failure.statementIndex,
        };
    return { receivedAt, keyId: ctx.key.id, ...searchableValues(payload), payload, error: withoutUndefined(error) };
  });
  try {
    await ctx.storage.insertRejections(ctx.store.id, rows);
    ctx.events.announceRejections(ctx.store, rows); // live events for the console (returns at once)
  } catch {
    // The client still learns why its statement was refused; losing the log entry of a refusal
    // (storage unavailable) must not turn a 400 into a 503.
  }
}

/** Best-effort index values of a payload that may be malformed in any way. */
function searchableValues(payload: unknown): Pick<RejectionRow, 'statementId' | 'agent' | 'verbId' | 'activityId'> {
  if (!isPlainObject(payload)) return { statementId: null, agent: null, verbId: null, activityId: null };
  const verb = payload.verb;
  const object = payload.object;
  let agent: string | null = null;
  try {
    const actor = payload.actor;
    // An mbox written as an author would (no mailto:, stray spaces) is filed under the key a search
    // for that address computes: the rejected statement is found by what its author sent.
    const typed = isPlainObject(actor) && typeof actor.mbox === 'string' ? emailAgentKey(actor.mbox) : null;
    agent = typed ?? (isPlainObject(actor) ? agentKey(actor as never) : null);
  } catch {
    agent = null;
  }
  return {
    statementId: typeof payload.id === 'string' ? payload.id.slice(0, 100) : null,
    agent,
    verbId: isPlainObject(verb) && typeof verb.id === 'string' ? verb.id : null,
    activityId: isPlainObject(object) && typeof object.id === 'string' ? object.id : null,
  };
}

/** Accepted with warnings: the row carries them; without any, nothing (the row is as before). */
function withWarnings(warnings: StatementWarning[]): { warnings?: StatementWarning[] } {
  return warnings.length > 0 ? { warnings } : {};
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
