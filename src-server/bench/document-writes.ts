/**
 * The State writes of a Test Bench attempt, kept for its timeline: each PUT, POST or DELETE of one
 * State document in a registration the Test Bench launched, done or refused for its version (an
 * ETag conflict), with what it wrote. It listens to the LRS's document writes as the live events
 * listen to its statements, and shows each write as the change it made (`documentChanges`).
 */
import type { DocumentWrite } from '../lrs/documents';
import type { StoredDocumentWrite, StoreRecord } from '../storage/storage';
import type { BenchContext } from './bench-context';

/** Larger contents are logged without their text: a course's State is a few kilobytes. */
const MAX_LOGGED_CONTENT_BYTES = 64 * 1024;
/** The most changes one write lists; a write that changes more says so. */
const MAX_CHANGES = 50;

export class AttemptDocumentLog {
  /**
   * The writes being logged, one after another: in the order they were announced, which is the
   * order they happened in this process (logged concurrently, a slower insert would land after a
   * later write's).
   */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: BenchContext) {}

  /** Returns at once: the write is logged after it was answered. */
  announceDocumentWrite(store: StoreRecord, write: DocumentWrite): void {
    const { key } = write;
    if (store.environment !== 'test' || key.kind !== 'state' || key.registration === null || key.activityId === null || key.agent === null) return;
    const { registration, activityId, agent } = key;
    this.queue = this.queue
      .then(() => this.log(store, write, registration, activityId, agent))
      .catch((err: unknown) => this.ctx.log(`Test Bench: could not log a State write in Store "${store.slug}": ${String(err)}`));
  }

  async settled(): Promise<void> {
    await this.queue;
  }

  private async log(store: StoreRecord, write: DocumentWrite, registration: string, activityId: string, agent: string): Promise<void> {
    // Only attempts the Test Bench launched: other content writing to a test Store is not logged.
    if ((await this.ctx.storage.listLaunches(store.id, { registration })).length === 0) return;
    await this.ctx.storage.insertDocumentWrite(store.id, {
      registration,
      activityId,
      agent,
      stateId: write.key.id,
      method: write.method,
      status: write.status,
      etagBefore: write.etagBefore,
      etagAfter: write.etagAfter,
      contentType: write.contentType,
      content: loggedText(write),
      keyId: write.keyId,
      at: write.at,
    });
  }
}

function loggedText(write: DocumentWrite): string | null {
  if (write.content === null || write.content.byteLength > MAX_LOGGED_CONTENT_BYTES) return null;
  const type = (write.contentType ?? '').toLowerCase();
  if (!type.startsWith('application/json') && !type.startsWith('text/')) return null;
  return Buffer.from(write.content).toString('utf8');
}

export interface DocumentChange {
  /** Dotted path of the member, '' for the whole document. */
  path: string;
  before: unknown;
  after: unknown;
}

/**
 * Each write of an attempt with the changes it made to its document: against the document as the
 * write before it (same Activity and State id) left it. A refused write changed nothing.
 */
export function documentChanges(writes: readonly StoredDocumentWrite[]): Array<StoredDocumentWrite & { changes: DocumentChange[] | null }> {
  const current = new Map<string, unknown>();
  return writes.map((write) => {
    const id = `${write.activityId} ${write.stateId}`;
    if (write.status !== 204) return { ...write, changes: [] };
    const before = current.get(id);
    if (write.method === 'DELETE') {
      current.delete(id);
      return { ...write, changes: [{ path: '', before: before ?? null, after: null }] };
    }
    const after = write.content === null ? undefined : parsed(write.content);
    current.set(id, after);
    if (after === undefined) return { ...write, changes: null };
    const changes: DocumentChange[] = [];
    // A first write is listed member by member, as if onto an empty document.
    diff(before ?? (isObject(after) ? {} : null), after, '', changes);
    return { ...write, changes };
  });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function diff(before: unknown, after: unknown, path: string, changes: DocumentChange[]): void {
  if (changes.length >= MAX_CHANGES) return;
  if (isObject(before) && isObject(after)) {
    for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
      diff(before[name], after[name], path === '' ? name : `${path}.${name}`, changes);
    }
    return;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) changes.push({ path, before: before ?? null, after: after ?? null });
}
