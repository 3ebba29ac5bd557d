/**
 * The document resources of a Store — State, Activity Profile, Agent Profile (xAPI 1.0.3 Part
 * Three §2.2–2.3, §2.6–2.7, §3.1; 2.0.0 §4.1.4, §4.1.6.2, §4.1.6.5–6): reads, writes and deletes,
 * with the rules of ../xapi/documents.ts.
 *
 * A write decides on the document it read (preconditions, merge) and then stores the result only
 * if that document is still the current one (Storage.upsertDocument's `ifCurrent`). When another
 * write came in between, it decides again on the new document: an If-Match then fails with 412
 * as it should, and a merge never drops what the other write stored.
 */
import type { DocumentKey, DocumentSet, Storage, StoreRecord, StoredDocument } from '../storage/storage';
import { contentForWrite, decideWrite, documentEtag, type DocumentRuleFailure, type Preconditions } from '../xapi/documents';
import type { XapiVersion } from '../xapi/version';
import type { StoredClock } from './stored-clock';

export interface DocumentContext {
  storage: Storage;
  store: StoreRecord;
  version: XapiVersion;
  /** Hands out update times that never go backwards, so `since` and Last-Modified agree. */
  clock: StoredClock;
  /** The API key the request came with. */
  keyId: string;
  /** Who hears of each write to one document, done or refused for its version (the Test Bench). */
  written?: DocumentWriteListener;
}

/**
 * A write to one document, as it ended: stored (etagAfter set, and the content), deleted, or
 * refused by a precondition or a race (status 409 or 412, nothing changed). Declared here, as
 * what the LRS tells, so it does not depend on who listens.
 */
export interface DocumentWrite {
  key: DocumentKey;
  method: 'PUT' | 'POST' | 'DELETE';
  status: 204 | 409 | 412;
  etagBefore: string | null;
  etagAfter: string | null;
  contentType: string | null;
  content: Uint8Array | null;
  keyId: string;
  at: string;
}

interface DocumentWriteListener {
  /** Returns at once. */
  announceDocumentWrite(store: StoreRecord, write: DocumentWrite): void;
}

function announce(ctx: DocumentContext, write: Omit<DocumentWrite, 'keyId' | 'at'>): void {
  ctx.written?.announceDocumentWrite(ctx.store, { ...write, keyId: ctx.keyId, at: ctx.clock.now().toISOString() });
}

const isConflict = (status: number): status is 409 | 412 => status === 409 || status === 412;

export interface DocumentFailure {
  status: 400 | 404 | 409 | 412;
  code: string;
  message: string;
  field?: string;
}

export type DocumentOutcome<T> = { ok: true; value: T } | { ok: false; failure: DocumentFailure };

/** How often a write decides again when other writes keep changing the document under it. */
const MAX_ATTEMPTS = 20;

const fail = (failure: DocumentRuleFailure | DocumentFailure): { ok: false; failure: DocumentFailure } => ({ ok: false, failure });

export async function readDocument(ctx: DocumentContext, key: DocumentKey): Promise<DocumentOutcome<StoredDocument>> {
  const document = await ctx.storage.findDocument(ctx.store.id, key);
  if (!document) {
    return fail({ status: 404, code: 'document_not_found', message: `No document with id "${key.id}" is stored here.` });
  }
  return { ok: true, value: document };
}

export function listDocumentIds(ctx: DocumentContext, set: DocumentSet): Promise<string[]> {
  return ctx.storage.listDocumentIds(ctx.store.id, set);
}

export interface WriteRequest {
  method: 'PUT' | 'POST';
  body: Uint8Array;
  contentType: string | undefined;
  preconditions: Preconditions;
}

/** PUT (store or replace) or POST (store, or merge into the JSON document there). */
export async function writeDocument(
  ctx: DocumentContext,
  key: DocumentKey,
  request: WriteRequest,
): Promise<DocumentOutcome<{ etag: string; updated: string }>> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await ctx.storage.findDocument(ctx.store.id, key);
    const decision = decideWrite({
      resource: key.kind,
      method: request.method,
      version: ctx.version,
      preconditions: request.preconditions,
      current: current?.etag ?? null,
    });
    if (!decision.ok) {
      const { status } = decision.failure;
      if (isConflict(status)) announce(ctx, { key, method: request.method, status, etagBefore: current?.etag ?? null, etagAfter: null, contentType: null, content: null });
      return fail(decision.failure);
    }
    const next = contentForWrite({ method: request.method, body: request.body, contentType: request.contentType, existing: current });
    if (!next.ok) return fail(next.failure);
    const written = {
      contentType: next.contentType,
      content: next.content,
      etag: documentEtag(next.content),
      updated: ctx.clock.now().toISOString(),
    };
    if (await ctx.storage.upsertDocument(ctx.store.id, key, written, current?.etag ?? null)) {
      announce(ctx, {
        key,
        method: request.method,
        status: 204,
        etagBefore: current?.etag ?? null,
        etagAfter: written.etag,
        contentType: written.contentType,
        content: written.content,
      });
      return { ok: true, value: { etag: written.etag, updated: written.updated } };
    }
  }
  announce(ctx, { key, method: request.method, status: 409, etagBefore: null, etagAfter: null, contentType: null, content: null });
  return fail(busy());
}

/** DELETE of one document: 204 whether or not it existed, unless a precondition fails. */
export async function deleteDocument(ctx: DocumentContext, key: DocumentKey, preconditions: Preconditions): Promise<DocumentOutcome<void>> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await ctx.storage.findDocument(ctx.store.id, key);
    const decision = decideWrite({ resource: key.kind, method: 'DELETE', version: ctx.version, preconditions, current: current?.etag ?? null });
    if (!decision.ok) {
      const { status } = decision.failure;
      if (isConflict(status)) announce(ctx, { key, method: 'DELETE', status, etagBefore: current?.etag ?? null, etagAfter: null, contentType: null, content: null });
      return fail(decision.failure);
    }
    if (!current) {
      // Nothing to delete, as far as this read sees: wait until what it saw is on disk.
      await ctx.storage.sync();
      return { ok: true, value: undefined };
    }
    if (await ctx.storage.deleteDocument(ctx.store.id, key, current.etag)) {
      announce(ctx, { key, method: 'DELETE', status: 204, etagBefore: current.etag, etagAfter: null, contentType: null, content: null });
      return { ok: true, value: undefined };
    }
  }
  return fail(busy());
}

/** DELETE of a State set (no stateId): every document of the activity and agent (and registration). */
export async function deleteDocuments(ctx: DocumentContext, set: DocumentSet): Promise<void> {
  await ctx.storage.deleteDocuments(ctx.store.id, { kind: set.kind, activityId: set.activityId, agent: set.agent, ...pickRegistration(set) });
}

function pickRegistration(set: DocumentSet): Pick<DocumentSet, 'registration'> {
  return set.registration === undefined ? {} : { registration: set.registration };
}

function busy(): DocumentFailure {
  return {
    status: 409,
    code: 'document_conflict',
    message: 'The document kept changing while this request was handled; nothing was changed. Retry.',
  };
}
