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
  /**
   * The LRS made the statement's id (StatementRow.idMadeByLrs): its signature is left to be
   * computed, should a later write ever bring the same id.
   */
  idMadeByLrs?: boolean;
}

/** `prepared` is the statement as stored (prepareStatement); `received` the JSON the client or the source sent. */
export function statementRowOf(prepared: Statement, received: unknown, fields: StatementRowFields): StatementRow {
  const index = extractIndexTerms(prepared);
  return {
    statementId: prepared.id as string,
    statement: prepared as Record<string, unknown>,
    signature: fields.idMadeByLrs ? null : statementSignature(prepared),
    stored: fields.stored,
    keyId: fields.keyId,
    verbId: index.verbId,
    registration: index.registration,
    voidsStatementId: index.voidsStatementId,
    targetStatementId: index.targetStatementId,
    terms: index.terms,
    activityDefinitions: fields.activityDefinitions,
    ...receivedForm(received, prepared as Record<string, unknown>),
    ...(fields.idMadeByLrs ? { idMadeByLrs: true as const } : {}),
  };
}
