/**
 * The row a prepared statement is stored as — its id, signature, index terms and the form it was
 * received in — whether a client sent it (statement-writes.ts) or another LRS stored it first
 * (statement-imports.ts).
 */
import type { ActivityDefinitionRow, StatementRow } from '../storage/storage';
import { extractIndexTerms } from '../xapi/index-terms';
import { receivedForm } from '../xapi/received-statement';
import type { Statement } from '../xapi/statement-schema';
import { statementSignature } from '../xapi/statement-signature';

export interface StatementRowFields {
  stored: string;
  keyId: string;
  activityDefinitions: ActivityDefinitionRow[];
}

/** `prepared` is the statement as stored (prepareStatement); `received` the JSON the client or the source sent. */
export function statementRowOf(prepared: Statement, received: unknown, fields: StatementRowFields): StatementRow {
  const index = extractIndexTerms(prepared);
  return {
    statementId: prepared.id as string,
    statement: prepared as Record<string, unknown>,
    signature: statementSignature(prepared),
    stored: fields.stored,
    keyId: fields.keyId,
    verbId: index.verbId,
    registration: index.registration,
    voidsStatementId: index.voidsStatementId,
    targetStatementId: index.targetStatementId,
    terms: index.terms,
    activityDefinitions: fields.activityDefinitions,
    ...receivedForm(received, prepared as Record<string, unknown>),
  };
}
