/**
 * Everything a Storage holds, as a stream of portable records that any implementation writes
 * and reads: how a deployment moves between the embedded database and PostgreSQL
 * (scripts/migrate.ts). Each implementation exports its rows in this form (exportRecords); one
 * import, through the Storage interface, writes them into any other.
 *
 * Statements travel as StatementRow (as stored and as received, signature, index terms, target),
 * in the order they were received, so the target gives them seqs in the same order; voiding is
 * replayed by the voiding statements themselves. Attachments and Activity definitions travel
 * whole (Storage.importActivities keeps a definition's `updated` time). The console's ingestion
 * statistics are recomputed by the target from the statements and rejections it receives. The
 * audit log, the erasure ledger, import jobs and forwarders follow (portable-admin.ts).
 */
import { createHash } from 'node:crypto';
import { adminRowsOf, importAdminRecord } from './portable-admin';
import type { AdminRecord } from './portable-admin';
import type { ActivityRecord, ApiKeyRecord, DocumentContent, DocumentKey, RefusalRow, RejectionRow, StatementRow, Storage, StoreRecord } from './storage';

export type PortableRecord =
  | { t: 'store'; store: StoreRecord }
  | { t: 'apiKey'; key: ApiKeyRecord }
  /** Statements of one Store, in receipt order; `voided` as the source had it (checked, not written). */
  | { t: 'statements'; storeId: string; rows: Array<PortableStatement> }
  | { t: 'attachments'; storeId: string; attachments: Array<{ sha2: string; contentType: string; content: Uint8Array }> }
  | { t: 'activities'; storeId: string; activities: ActivityRecord[] }
  | { t: 'rejections'; storeId: string; rows: RejectionRow[] }
  | { t: 'document'; storeId: string; key: DocumentKey; document: DocumentContent }
  | { t: 'refusals'; rows: Array<RefusalRow & { storeId: string | null }> }
  /** The audit log, the erasure ledger, import jobs, forwarders: after everything above (portable-admin.ts). */
  | AdminRecord;

export type PortableStatement = Omit<StatementRow, 'attachments' | 'activityDefinitions'> & { voided: boolean };

/** What one kind of record adds up to: how many, and a checksum that does not depend on order. */
export interface TableSummary {
  rows: number;
  checksum: string;
}

/** Per kind of row (stores, apiKeys, statements, ...): counts and checksums of a stream. */
export class PortableSummary {
  private readonly digests = new Map<string, string[]>();

  /** Counts `record`'s rows under their kinds. */
  add(record: PortableRecord): void {
    for (const [kind, value] of rowsOf(record)) {
      let list = this.digests.get(kind);
      if (!list) this.digests.set(kind, (list = []));
      list.push(createHash('sha256').update(canonicalJson(value)).digest('hex'));
    }
  }

  tables(): Record<string, TableSummary> {
    const out: Record<string, TableSummary> = {};
    for (const kind of [...this.digests.keys()].sort()) {
      const digests = [...this.digests.get(kind)!].sort();
      out[kind] = { rows: digests.length, checksum: createHash('sha256').update(digests.join('\n')).digest('hex').slice(0, 16) };
    }
    return out;
  }
}

/** The rows of a record, each with the kind it counts under, in a form equal on both sides. */
function rowsOf(record: PortableRecord): Array<[string, unknown]> {
  switch (record.t) {
    case 'store':
      return [['stores', record.store]];
    case 'apiKey':
      return [['apiKeys', record.key]];
    case 'statements':
      return record.rows.map((row) => ['statements', { ...row, terms: [...row.terms].sort(compareTerms) }]);
    case 'attachments':
      return record.attachments.map((a) => ['attachments', { storeId: record.storeId, sha2: a.sha2, contentType: a.contentType, content: Buffer.from(a.content).toString('base64') }]);
    case 'activities':
      return record.activities.map((a) => ['activities', { storeId: record.storeId, ...a }]);
    case 'rejections':
      return record.rows.map((r) => ['rejections', { storeId: record.storeId, ...r }]);
    case 'document':
      return [['documents', { storeId: record.storeId, key: record.key, ...record.document, content: Buffer.from(record.document.content).toString('base64') }]];
    case 'refusals':
      return record.rows.map((r) => ['refusals', r]);
    default:
      return adminRowsOf(record);
  }
}

function compareTerms(a: { kind: string; value: string; primary: boolean }, b: { kind: string; value: string; primary: boolean }): number {
  const ka = `${a.kind}\u0000${a.value}`;
  const kb = `${b.kind}\u0000${b.value}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** JSON with object keys sorted at every level, and undefined members left out: equal values, equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) {
      const member = (v as Record<string, unknown>)[key];
      if (member !== undefined) Object.defineProperty(sorted, key, { value: member, enumerable: true, writable: true, configurable: true });
    }
    return sorted;
  });
}

/**
 * Writes `records` into `target` through the Storage interface, in order; resolves with the
 * summary of what it wrote. A statement the target reports as a conflict or unchanged means the
 * target was not empty where it was told to be: it throws.
 */
export async function importRecords(target: Storage, records: AsyncIterable<PortableRecord>, onProgress?: (record: PortableRecord) => void): Promise<PortableSummary> {
  const summary = new PortableSummary();
  const pendingAttachments = new Map<string, Array<{ sha2: string; contentType: string; content: Uint8Array }>>();
  for await (const record of records) {
    switch (record.t) {
      case 'store':
        await target.insertStore(record.store);
        break;
      case 'apiKey':
        await target.insertApiKey(record.key);
        break;
      case 'attachments':
        // Written with the Store's next statements (attachments are kept with statements).
        pendingAttachments.set(record.storeId, [...(pendingAttachments.get(record.storeId) ?? []), ...record.attachments]);
        break;
      case 'statements': {
        const rows: StatementRow[] = record.rows.map(({ voided: _voided, ...row }) => row);
        const attachments = pendingAttachments.get(record.storeId);
        if (attachments && rows.length > 0) {
          rows[0] = { ...rows[0]!, attachments };
          pendingAttachments.delete(record.storeId);
        }
        const result = await target.insertStatements(record.storeId, rows);
        if (!result.ok) throw new Error(`statement ${result.conflict.statementId} exists in the target with other content`);
        if (result.unchanged.length > 0) throw new Error(`statement ${result.unchanged[0]} exists in the target already`);
        break;
      }
      case 'activities':
        if (!target.importActivities) throw new Error('the target storage cannot take Activity definitions');
        await target.importActivities(record.storeId, record.activities);
        break;
      case 'rejections':
        await target.insertRejections(record.storeId, record.rows);
        break;
      case 'document':
        if (!(await target.upsertDocument(record.storeId, record.key, record.document, null))) {
          throw new Error(`document ${record.key.kind} ${record.key.id} exists in the target already`);
        }
        break;
      case 'refusals':
        await target.insertRefusals(record.rows);
        break;
      default:
        await importAdminRecord(target, record);
    }
    summary.add(record);
    onProgress?.(record);
  }
  for (const [storeId, attachments] of pendingAttachments) {
    if (attachments.length > 0) throw new Error(`Store ${storeId}: ${attachments.length} attachments without statements to keep them with`);
  }
  return summary;
}

/** The summary of an exported stream (the source's side of the comparison). */
export async function summarize(records: AsyncIterable<PortableRecord>): Promise<PortableSummary> {
  const summary = new PortableSummary();
  for await (const record of records) summary.add(record);
  return summary;
}
