/**
 * Forwarders (docs/forwarding.md): create, list with their status, pause and resume, delete, and
 * redeliver dead letters. Plain functions over Storage; delivery itself is the ForwardingWorker's
 * (forwarding-worker.ts), which these wake when there is something new for it.
 */
import { randomUUID } from 'node:crypto';
import type { DeadLetterRecord, ForwarderRecord } from '../storage/forwarders';
import { newForwarderRecord } from '../storage/forwarders';
import type { Storage, StoreRecord } from '../storage/storage';
import type { CreateForwarderInput, DeadLetterView, ForwarderView } from './contract';

/** What the worker is told of a change an admin made: delivery may go on at once. */
export interface ForwardingWake {
  wake(forwarderId: string): void;
  /** A forwarder of the Store was added or deleted: the Store's writes wake another set. */
  forwardersChanged(storeId: string): void;
}

export interface ForwarderDeps {
  storage: Storage;
  forwarding?: ForwardingWake;
}

export async function createForwarder(deps: ForwarderDeps, store: StoreRecord, input: CreateForwarderInput, now = new Date()): Promise<ForwarderRecord> {
  const record = newForwarderRecord({
    id: randomUUID(),
    storeId: store.id,
    kind: input.kind,
    url: input.url,
    username: input.kind === 'xapi' ? input.username! : null,
    secret: input.kind === 'xapi' ? input.password! : input.secret!,
    filter: input.filter && Object.keys(input.filter).length > 0 ? input.filter : null,
    createdAt: now.toISOString(),
    // `now`: the durable statements so far count as passed; `beginning`: none do.
    cursor: input.from === 'beginning' ? 0 : await deps.storage.currentSeq(),
  });
  await deps.storage.insertForwarder(record);
  deps.forwarding?.forwardersChanged(store.id);
  deps.forwarding?.wake(record.id);
  return record;
}

/** The Store's forwarder of that id, or null (another Store's is not this one's). */
export async function findStoreForwarder(storage: Storage, store: StoreRecord, id: string): Promise<ForwarderRecord | null> {
  const record = await storage.findForwarder(id);
  return record && record.storeId === store.id ? record : null;
}

export async function toForwarderView(storage: Storage, record: ForwarderRecord): Promise<ForwarderView> {
  const [pending, letters] = await Promise.all([storage.countForwardable(record.storeId, record.cursor), storage.listDeadLetters(record.id)]);
  const queued = letters.filter((letter) => letter.queued).reduce((sum, letter) => sum + letter.statementIds.length, 0);
  return {
    id: record.id,
    kind: record.kind,
    url: record.url,
    username: record.username,
    filter: record.filter,
    paused: record.paused,
    createdAt: record.createdAt,
    deliveredThrough: { seq: record.cursor, stored: record.cursorStored },
    deliveredAt: record.deliveredAt,
    pending: pending + queued,
    lastError: record.lastError,
    failingSince: record.failingSince,
    nextAttemptAt: record.nextAttemptAt,
    deadLetters: letters.filter((letter) => !letter.queued).length,
  };
}

export async function setForwarderPaused(deps: ForwarderDeps, store: StoreRecord, record: ForwarderRecord, paused: boolean): Promise<ForwarderRecord> {
  // Resuming tries a failing batch at once rather than at its next backoff.
  const patch = paused ? { paused } : { paused, nextAttemptAt: null };
  await deps.storage.updateForwarder(record.id, patch);
  if (!paused) deps.forwarding?.wake(record.id);
  return { ...record, ...patch };
}

export async function deleteForwarder(deps: ForwarderDeps, store: StoreRecord, record: ForwarderRecord): Promise<void> {
  await deps.storage.deleteForwarder(record.id);
  deps.forwarding?.forwardersChanged(store.id);
}

export async function redeliver(deps: ForwarderDeps, store: StoreRecord, record: ForwarderRecord, ids?: number[]): Promise<number> {
  const queued = await deps.storage.requeueDeadLetters(record.id, ids);
  // A paused forwarder delivers them once resumed.
  deps.forwarding?.wake(record.id);
  return queued;
}

export function toDeadLetterView(letter: DeadLetterRecord): DeadLetterView {
  const { forwarderId: _forwarderId, ...view } = letter;
  return view;
}
