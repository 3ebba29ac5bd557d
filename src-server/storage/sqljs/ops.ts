/**
 * The logical operations the journal records, and the one function that applies them. Every value
 * an operation needs (seq numbers, store numbers, timestamps) is decided before it is journaled,
 * so applying a record at start-up does exactly what applying it at run time did. Each domain's
 * module declares its operations, builds them and applies them; this file only dispatches.
 */
import { applyApiKeyOp } from './api-keys';
import { applyBenchOp } from './bench';
import type { BenchOp } from './bench';
import type { ApplyState } from './apply-state';
import { flushPendingIngestion, flushPendingIngestionBefore } from './ingestion';
import type { ApiKeyOp } from './api-keys';
import { applyDocumentOp } from './documents';
import type { DocumentOp } from './documents';
import { applyEmptyStore } from './empty-store';
import type { EmptyStoreOp } from './empty-store';
import { applyInsertRejections } from './rejections';
import type { InsertRejectionsOp } from './rejections';
import { applyInsertStatements, insertStatementsPayload } from './statement-writes';
import type { InsertStatementsOp } from './statement-writes';
import { applyStoreOp } from './stores';
import { applyPruneRejections } from './retention';
import { applyRefusalOp } from './refusals';
import type { RefusalOp } from './refusals';
import type { PruneRejectionsOp } from './retention';
import type { StoreOp } from './stores';
import { applyEraseAgents } from './erasure';
import type { EraseAgentsOp } from './erasure';
import { applyRetainRecords } from './store-retention';
import type { RetainRecordsOp } from './store-retention';
import { applyForwarderOp } from './forwarders';
import type { ForwarderOp } from './forwarders';
import { applyPutImportJob } from './import-jobs';
import type { PutImportJobOp } from './import-jobs';
import { applyAuditOp } from './audit-log';
import type { AuditOp } from './audit-log';

export type Op =
  /** insertStore, updateStore, deleteStore (stores.ts). */
  | StoreOp
  /** insertApiKey, updateApiKey, touchApiKeys (api-keys.ts). */
  | ApiKeyOp
  /** Statements with their Activity definitions (statement-writes.ts). */
  | InsertStatementsOp
  | InsertRejectionsOp
  /** State, Activity Profile and Agent Profile documents: see documents.ts. */
  | DocumentOp
  /** Console: every row of a Store but the Store and its keys (empty-store.ts). */
  | EmptyStoreOp
  /** Retention of the rejected-statement log (retention.ts). */
  | PruneRejectionsOp
  /** The log of refused requests and its retention (refusals.ts). */
  | RefusalOp
  /** The Test Bench's packages and launches (bench.ts). */
  | BenchOp
  /** Forgetting a learner, with its ledger entry (erasure.ts). */
  | EraseAgentsOp
  /** A step of a Store's retention of statements, rejections and refusals (store-retention.ts). */
  | RetainRecordsOp
  /** Forwarders, their cursors and dead letters (forwarders.ts). */
  | ForwarderOp
  /** Imports of statements: the job as it now is (import-jobs.ts). */
  | PutImportJobOp
  /** The audit log of admin actions and its retention (audit-log.ts). */
  | AuditOp
  | LostRecordsOp;

/**
 * Written by the repair command (journal-repair.ts) where records could not be read or applied:
 * journal seqs up to `through` are accounted for, so replay goes on at `through + 1` instead of
 * refusing a gap. Applies nothing.
 */
interface LostRecordsOp {
  t: 'lostRecords';
  through: number;
  reason: string;
  /** Statement ids the lost records still named, where their bytes could be read. */
  statementIds: string[];
}

/** An operation as its journal record holds it (journal-format.ts): JSON in parts, statements' bytes made once. */
export function opPayload(op: Op): Array<string | Uint8Array> {
  return op.t === 'insertStatements' ? insertStatementsPayload(op) : [JSON.stringify(op)];
}

/**
 * Applies one operation in its own SQL transaction: the live write path and replay both call this,
 * so they do exactly the same. Waiting ingestion counts are written first when the operation needs
 * them in the tables (ingestion.ts), in a transaction of their own.
 */
export function applyOpInTransaction(state: ApplyState, op: Op): void {
  flushPendingIngestionBefore(state.sql, state.ingestion, op);
  state.sql.transaction(() => applyOp(state, op));
}

/**
 * Writes what applying keeps in memory for a while (the ingestion counts, ingestion.ts) to its
 * tables: before anything reads them, and before an image of the database is taken.
 */
export function flushDerived(state: ApplyState): void {
  flushPendingIngestion(state.sql, state.ingestion);
}

/** Applies one operation. The caller wraps it in a transaction (applyOpInTransaction). */
export function applyOp(state: ApplyState, op: Op): void {
  switch (op.t) {
    case 'insertStore':
    case 'updateStore':
    case 'deleteStore':
      applyStoreOp(state, op);
      return;
    case 'insertApiKey':
    case 'updateApiKey':
    case 'touchApiKeys':
      applyApiKeyOp(state.sql, op);
      return;
    case 'insertStatements':
      applyInsertStatements(state, op);
      return;
    case 'insertRejections':
      applyInsertRejections(state, op);
      return;
    case 'upsertDocument':
    case 'deleteDocuments':
      applyDocumentOp(state.sql, op);
      return;
    case 'emptyStore':
      applyEmptyStore(state, op);
      return;
    case 'pruneRejections':
      applyPruneRejections(state, op);
      return;
    case 'insertRefusals':
    case 'pruneRefusals':
      applyRefusalOp(state, op);
      return;
    case 'insertAudit':
    case 'pruneAudit':
      applyAuditOp(state, op);
      return;
    case 'insertPackage':
    case 'deletePackage':
    case 'setPackageReference':
    case 'insertLaunch':
    case 'redeemLaunchFetch':
    case 'insertDocumentWrite':
      applyBenchOp(state, op);
      return;
    case 'eraseAgents':
      applyEraseAgents(state, op);
      return;
    case 'retainRecords':
      applyRetainRecords(state, op);
      return;
    case 'insertForwarder':
    case 'updateForwarder':
    case 'settleForwarderBatch':
    case 'deleteForwarder':
    case 'requeueDeadLetters':
      applyForwarderOp(state, op);
      return;
    case 'putImportJob':
      applyPutImportJob(state, op);
      return;
    case 'lostRecords':
      return;
    default: {
      const unknown: never = op;
      throw new Error(`unknown journal operation ${JSON.stringify((unknown as { t?: unknown }).t)}`);
    }
  }
}
