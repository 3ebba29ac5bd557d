/**
 * The statement as the LRS stores it: the properties the LRS assigns (xAPI 1.0.3 Part Two
 * §2.3.1.b1: "id", "authority", "stored", "timestamp", "version") are set; everything else is
 * kept exactly as received (§2.2.s2.b5), apart from contextActivities values, which validation
 * has already turned into arrays (§2.4.6.2.s4.b3, XAPI-00096).
 */

import type { Agent, Group, Statement } from './statement-schema';
import type { XapiVersion } from './version';

export interface PrepareContext {
  /** The authority the credentials stand for: it replaces any authority the client sent. */
  authority: Agent | Group;
  /** The rule set that accepted the statement (the X-Experience-API-Version header). */
  version: XapiVersion;
  /** When the LRS stored it: ISO 8601 in UTC with milliseconds. */
  stored: string;
  newId: () => string;
}

/** The version a statement gets when it has none (1.0.3 §2.4.10.s3.b3 says 1.0.0; 2.0.0 says 2.0.0). */
const DEFAULT_STATEMENT_VERSION: Readonly<Record<XapiVersion, string>> = { '1.0.3': '1.0.0', '2.0.0': '2.0.0' };

/** Returns a new statement; the one passed in is not changed. */
export function prepareStatement(statement: Statement, ctx: PrepareContext): Statement {
  // Built member by member in this order (the stored JSON's), absent ones left out: a literal
  // filtered through Object.entries/fromEntries cost as much as the rest of the preparation.
  const prepared: Record<string, unknown> = {
    // §2.4.1: "If the Statement does not have an id, the LRS MUST generate one." UUIDs compare
    // without case (RFC 4122 §3); storing them lower-case makes lookups exact.
    id: (statement.id ?? ctx.newId()).toLowerCase(),
  };
  if (statement.actor !== undefined) prepared.actor = statement.actor;
  if (statement.verb !== undefined) prepared.verb = statement.verb;
  if (statement.object !== undefined) prepared.object = statement.object;
  if (statement.result !== undefined) prepared.result = statement.result;
  if (statement.context !== undefined) prepared.context = statement.context;
  // §2.4.7.s3.b3: if not provided, timestamp SHOULD* be set to the value of stored.
  prepared.timestamp = statement.timestamp ?? ctx.stored;
  // §2.4.8.s3.b1: stored is set by the LRS; a value the client sent is overwritten.
  prepared.stored = ctx.stored;
  // §2.4.9.s3.b4: "The LRS SHOULD overwrite the authority on all Statements it stores, based on
  // the credentials used to send those Statements." A client cannot assert for someone else.
  prepared.authority = ctx.authority;
  // §2.4.10: a version the client sent is kept (XAPI-00332); otherwise the default.
  prepared.version = statement.version ?? DEFAULT_STATEMENT_VERSION[ctx.version];
  if (statement.attachments !== undefined) prepared.attachments = statement.attachments;
  return prepared as Statement;
}
