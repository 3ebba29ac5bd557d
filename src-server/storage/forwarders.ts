/**
 * Forwarders: each sends a Store's statements, in seq order, to a destination (another LRS or a
 * webhook). The statements themselves are the outbox: a forwarder keeps the seq it has delivered
 * up to (its cursor), advanced only after the destination acknowledged a batch. Batches that could
 * not be delivered for long enough become dead letters (their seq range and statement ids kept),
 * which an admin can queue again. docs/forwarding.md says why and how.
 */

type ForwarderKind = 'webhook' | 'xapi';

/** Which statements a forwarder sends; every member given must match. */
export interface ForwarderFilter {
  /** The verb's IRI. */
  verb?: string;
  /** The object Activity's IRI. */
  activity?: string;
  /** `accepted`: statements not voided when they are sent; `voided`: only voided ones. */
  status?: 'accepted' | 'voided';
}

export interface ForwarderError {
  /** The destination's HTTP status; null when there was no answer (refused, timed out, DNS). */
  status: number | null;
  message: string;
  at: string;
}

export interface ForwarderRecord {
  id: string;
  storeId: string;
  kind: ForwarderKind;
  /** webhook: where batches are POSTed; xapi: the other LRS's endpoint (…/xAPI). */
  url: string;
  /** xapi: the Basic user name; null for a webhook. */
  username: string | null;
  /**
   * webhook: the signing secret; xapi: the Basic password. Kept as given (it must be usable),
   * never returned by the admin API after creation, never logged.
   */
  secret: string;
  filter: ForwarderFilter | null;
  paused: boolean;
  createdAt: string;
  /** Every statement of the Store up to this seq has been delivered (or filtered out, or dead-lettered). */
  cursor: number;
  /** `stored` of the statement at the cursor; null before the first. */
  cursorStored: string | null;
  /** When the destination last acknowledged a batch. */
  deliveredAt: string | null;
  /** When the batch now waiting first failed; null while nothing fails. */
  failingSince: string | null;
  /** Failed attempts of that batch. */
  attempts: number;
  /** When the waiting batch is tried again; null: as soon as there is one. */
  nextAttemptAt: string | null;
  lastError: ForwarderError | null;
}

export type ForwarderPatch = Partial<Pick<ForwarderRecord, 'paused' | 'failingSince' | 'attempts' | 'nextAttemptAt' | 'lastError'>>;

/** A batch that was given up on: its range of seqs and the ids of what it held. */
export interface DeadLetterRecord {
  id: number;
  forwarderId: string;
  fromSeq: number;
  throughSeq: number;
  statementIds: string[];
  error: ForwarderError;
  /** When it was given up on. */
  at: string;
  /** Queued for redelivery: sent before the forwarder goes on past its cursor. */
  queued: boolean;
}

/** How a batch ended; applied in one atomic write (with the cursor, when it moves). */
export type ForwarderSettlement =
  /** Acknowledged (or filtered out entirely): the cursor moves to `throughSeq`, or the dead letter redelivered goes. */
  | { outcome: 'delivered'; throughSeq: number; throughStored: string | null; at: string; deadLetterId?: number }
  /** Given up on: a dead letter is kept and the cursor moves past it; or a redelivered one is dead again. */
  | {
      outcome: 'dead';
      fromSeq: number;
      throughSeq: number;
      throughStored: string | null;
      statementIds: string[];
      error: ForwarderError;
      at: string;
      deadLetterId?: number;
    };

/** A statement as a forwarder reads it: as stored, as GET would answer it. */
export interface ForwardableStatement {
  seq: number;
  statementId: string;
  statementJson: string;
  stored: string;
  voided: boolean;
}

export interface ForwarderStorage {
  insertForwarder(record: ForwarderRecord): Promise<void>;
  /** One Store's forwarders, oldest first; every Store's without one. */
  listForwarders(storeId?: string): Promise<ForwarderRecord[]>;
  findForwarder(id: string): Promise<ForwarderRecord | null>;
  /** False when there is no such forwarder. */
  updateForwarder(id: string, patch: ForwarderPatch): Promise<boolean>;
  /**
   * Applies how a batch ended and clears the failure (failingSince, attempts, nextAttemptAt). With
   * `leaseOwner`, only while that owner holds the lease (leaseForwarder). False when nothing was
   * written: no such forwarder, or the lease was lost.
   */
  settleForwarderBatch(id: string, settlement: ForwarderSettlement, leaseOwner?: string): Promise<boolean>;
  /** Deletes the forwarder with its dead letters; false when there was none. */
  deleteForwarder(id: string): Promise<boolean>;
  /** The forwarder's dead letters, oldest first. */
  listDeadLetters(forwarderId: string): Promise<DeadLetterRecord[]>;
  /** Queues dead letters for redelivery (all of them without `ids`); resolves how many. */
  requeueDeadLetters(forwarderId: string, ids?: readonly number[]): Promise<number>;
  /**
   * The Store's statements with seq in (afterSeq, throughSeq], ascending, voided ones included,
   * only durable ones (sql.js: the visible seq; PostgreSQL: the settled seq), up to `limit`.
   */
  readForwardable(storeId: string, range: { afterSeq: number; throughSeq?: number; limit: number }): Promise<ForwardableStatement[]>;
  /** How many durable statements of the Store have a seq above `afterSeq`. */
  countForwardable(storeId: string, afterSeq: number): Promise<number>;
  /**
   * Takes or renews the right to deliver for the forwarder until `ms` from now: true when this
   * owner holds it. Absent where one process alone uses the storage (the embedded database).
   */
  leaseForwarder?(id: string, owner: string, ms: number): Promise<boolean>;
  /** Gives the lease up (a stopping process), so another takes over at once. */
  releaseForwarder?(id: string, owner: string): Promise<void>;
}

/** The forwarder's record after a settlement (both backends write it so). */
export function settledRecord(record: ForwarderRecord, s: ForwarderSettlement): ForwarderRecord {
  const next: ForwarderRecord = { ...record, failingSince: null, attempts: 0, nextAttemptAt: null };
  // A redelivered dead letter lies behind the cursor: it never moves it.
  if (s.deadLetterId === undefined && s.throughSeq > next.cursor) {
    next.cursor = s.throughSeq;
    next.cursorStored = s.throughStored;
  }
  if (s.outcome === 'delivered') next.deliveredAt = s.at;
  else next.lastError = s.error;
  return next;
}

/** A new forwarder: not paused, nothing delivered, nothing failing. */
export function newForwarderRecord(
  fields: Pick<ForwarderRecord, 'id' | 'storeId' | 'kind' | 'url' | 'username' | 'secret' | 'filter' | 'createdAt' | 'cursor'>,
): ForwarderRecord {
  return { ...fields, paused: false, cursorStored: null, deliveredAt: null, failingSince: null, attempts: 0, nextAttemptAt: null, lastError: null };
}
