/**
 * The service's own records as portable records (portable.ts), the same on every backend because
 * they are read and written through the Storage interface: the audit log, the erasure ledger,
 * import jobs, and forwarders with their dead letters. They follow the Stores and statements in
 * the stream, so what they refer to is in the target before them.
 *
 * Seqs are the backend's own: a statement has another seq in the target. A forwarder's cursor and
 * a dead letter's range travel as positions instead — how many of the Store's statements lie after
 * the seq — which are equal on both sides because every statement is carried, in order; the
 * target turns a position back into its own seq (seqWithAfter). Audit entries and dead letters
 * are numbered again by the target; everything else is kept as recorded.
 */
import { auditFields } from './audit';
import type { AuditRow } from './audit';
import type { ErasureRecord } from './erasure';
import type { DeadLetterRecord, ForwarderRecord } from './forwarders';
import type { ImportJobRecord, Storage } from './storage';

/** A forwarder with its cursor as a position: `afterCursor` statements of the Store lie after it. */
type PortableForwarder = Omit<ForwarderRecord, 'cursor'> & { afterCursor: number };

/** A dead letter without its id, its range as positions: statements after `fromSeq - 1` and after `throughSeq`. */
type PortableDeadLetter = Omit<DeadLetterRecord, 'id' | 'fromSeq' | 'throughSeq'> & { afterFrom: number; afterThrough: number };

export type AdminRecord =
  /** Oldest first. */
  | { t: 'audit'; rows: AuditRow[] }
  /** The whole ledger, deleted Stores' entries included, as recorded. */
  | { t: 'erasures'; rows: ErasureRecord[] }
  /** One Store's import jobs, oldest first, finished ones included. */
  | { t: 'importJobs'; storeId: string; jobs: ImportJobRecord[] }
  | { t: 'forwarder'; forwarder: PortableForwarder; deadLetters: PortableDeadLetter[] };

const AUDIT_PAGE = 1_000;

/** `records` (a backend's own export), then the service's records read from `storage`. */
export async function* withAdminRecords<T>(storage: Storage, records: AsyncIterable<T>): AsyncGenerator<T | AdminRecord> {
  yield* records;
  yield* exportAdminRecords(storage);
}

async function* exportAdminRecords(storage: Storage): AsyncGenerator<AdminRecord> {
  const erasures = await storage.listErasures();
  if (erasures.length > 0) yield { t: 'erasures', rows: erasures };
  for (const store of await storage.listStores()) {
    const jobs = await storage.listImportJobs({ storeId: store.id });
    if (jobs.length > 0) yield { t: 'importJobs', storeId: store.id, jobs: jobs.reverse() };
  }
  for (const { cursor, ...forwarder } of await storage.listForwarders()) {
    const deadLetters: PortableDeadLetter[] = [];
    for (const { id: _id, fromSeq, throughSeq, ...letter } of await storage.listDeadLetters(forwarder.id)) {
      deadLetters.push({ ...letter, afterFrom: await storage.countForwardable(forwarder.storeId, fromSeq - 1), afterThrough: await storage.countForwardable(forwarder.storeId, throughSeq) });
    }
    yield { t: 'forwarder', forwarder: { ...forwarder, afterCursor: await storage.countForwardable(forwarder.storeId, cursor) }, deadLetters };
  }
  // The log is read newest first; it is written to the target oldest first, so its order stays.
  const audit: AuditRow[] = [];
  let beforeId: number | undefined;
  do {
    const page = await storage.listAuditEntries({ limit: AUDIT_PAGE, ...(beforeId === undefined ? {} : { beforeId }) });
    audit.push(...page.entries.map(auditFields));
    beforeId = page.nextBeforeId ?? undefined;
  } while (beforeId !== undefined);
  audit.reverse();
  for (let i = 0; i < audit.length; i += AUDIT_PAGE) yield { t: 'audit', rows: audit.slice(i, i + AUDIT_PAGE) };
}

/** Writes one of the service's records into `target`. */
export async function importAdminRecord(target: Storage, record: AdminRecord): Promise<void> {
  switch (record.t) {
    case 'audit':
      for (const row of record.rows) await target.insertAuditEntry(row);
      return;
    case 'erasures':
      for (const entry of record.rows) {
        if (!(await target.keepErasureRecord(entry))) throw new Error(`erasure ${entry.id} is in the target's ledger already`);
      }
      return;
    case 'importJobs':
      for (const job of record.jobs) await target.putImportJob(job);
      return;
    case 'forwarder':
      await importForwarder(target, record.forwarder, record.deadLetters);
      return;
  }
}

async function importForwarder(target: Storage, { afterCursor, ...forwarder }: PortableForwarder, deadLetters: PortableDeadLetter[]): Promise<void> {
  const { storeId, id } = forwarder;
  await target.insertForwarder({ ...forwarder, cursor: await seqWithAfter(target, storeId, afterCursor) });
  // A dead letter is only ever written by a settlement; one behind the cursor leaves the cursor
  // where it is. The forwarder's failure state, which a settlement clears, is put back after.
  for (const letter of deadLetters) {
    const fromSeq = (await seqWithAfter(target, storeId, letter.afterFrom)) + 1;
    const throughSeq = await seqWithAfter(target, storeId, letter.afterThrough);
    await target.settleForwarderBatch(id, { outcome: 'dead', fromSeq, throughSeq, throughStored: null, statementIds: letter.statementIds, error: letter.error, at: letter.at });
  }
  if (deadLetters.length > 0) {
    const { failingSince, attempts, nextAttemptAt, lastError } = forwarder;
    await target.updateForwarder(id, { failingSince, attempts, nextAttemptAt, lastError });
    const written = await target.listDeadLetters(id);
    const queued = written.filter((_letter, i) => deadLetters[i]?.queued).map((letter) => letter.id);
    if (queued.length > 0) await target.requeueDeadLetters(id, queued);
  }
}

/**
 * The Store's seq in `storage` with exactly `after` of its statements after it: the seq of the
 * statement before those (0 when there is none). Found by halving, counting as a forwarder does.
 */
async function seqWithAfter(storage: Storage, storeId: string, after: number): Promise<number> {
  const count = (seq: number) => storage.countForwardable(storeId, seq);
  if ((await count(0)) <= after) return 0;
  // count(low) > after >= count(high) throughout.
  let low = 0;
  let high = 1;
  while ((await count(high)) > after) {
    low = high;
    high *= 2;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((await count(middle)) > after) low = middle;
    else high = middle;
  }
  return high;
}

/** The rows of one of the service's records, each with the kind it counts under. */
export function adminRowsOf(record: AdminRecord): Array<[string, unknown]> {
  switch (record.t) {
    case 'audit':
      return record.rows.map((row) => ['audit', row]);
    case 'erasures':
      return record.rows.map((row) => ['erasures', row]);
    case 'importJobs':
      return record.jobs.map((job) => ['importJobs', job]);
    case 'forwarder':
      return [['forwarders', record.forwarder], ...record.deadLetters.map((letter): [string, unknown] => ['deadLetters', letter])];
  }
}
