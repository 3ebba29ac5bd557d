/**
 * An export of what an Explorer filter shows, as NDJSON or CSV, oldest first (the Store's order:
 * an NDJSON file imported into another Store keeps it, as an import inserts its lines in turn), read
 * a page at a time so memory holds one page whatever the Store's size: the caller pulls the next
 * page only when the client has taken the last (a Readable of this generator, piped with
 * backpressure). The reads stop at the durable seq, as every Explorer read.
 *
 * The Explorer reads newest first, so the export reads twice: a first pass notes where each page
 * begins (a number a page: 4,000 for a million records), the second reads the pages again from the
 * oldest and writes each reversed. Only what the first pass saw is written: statements recorded
 * meanwhile are above its first bound, and a page read again never writes below the next one's.
 *
 * NDJSON is the statements as stored, one a line and nothing else (what GET /statements answers
 * and what an NDJSON import reads back): accepted and voided ones only, a rejected entry is no
 * statement. CSV is one row per record, rejected ones included, with its status (statement-csv.ts).
 */
import { Readable } from 'node:stream';
import type { ExplorerQuery, ExplorerRecord, Storage, StoreRecord } from '../storage/storage';
import { CSV_HEADER, csvRow } from './statement-csv';
import { asBuffer } from '../xapi/json-text';

export type ExportFormat = 'ndjson' | 'csv';

/** Records read at a time: a few hundred keeps each read short (the embedded storage reads synchronously: a write waits behind it) and memory flat. */
export const EXPORT_PAGE = 250;

export interface ExportProgress {
  /** Lines written so far (the CSV header not counted). */
  count: number;
  /** Set once the last page is read: an export a client abandoned stays false. */
  complete: boolean;
}

function line(format: ExportFormat, record: ExplorerRecord): string | null {
  if (format === 'csv') return csvRow(record);
  if (record.storedUtf8 !== undefined) return `${asBuffer(record.storedUtf8).toString('utf8')}\n`;
  if (record.storedJson !== undefined) return `${record.storedJson}\n`;
  return record.stored === undefined ? null : `${JSON.stringify(record.stored)}\n`;
}

/**
 * The export's text, one chunk per page read. `progress.count` follows what was produced, for the
 * audit entry written when the export ends.
 */
export async function* exportChunks(
  storage: Storage,
  store: StoreRecord,
  filter: Omit<ExplorerQuery, 'limit' | 'beforeSeq'>,
  format: ExportFormat,
  progress: ExportProgress = { count: 0, complete: false },
  pageSize: number = EXPORT_PAGE,
): AsyncGenerator<string> {
  if (format === 'csv') yield CSV_HEADER;
  const read = (beforeSeq: number | undefined) => storage.searchExplorer(store.id, { ...filter, limit: pageSize, beforeSeq });
  // Other requests run between pages, whatever pace the client reads at.
  const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

  // Pass 1: each page's upper bound (exclusive), newest page first.
  const bounds: number[] = [];
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await read(beforeSeq);
    const newest = page.records[0];
    if (!newest) break;
    bounds.push(beforeSeq ?? newest.seq + 1);
    if (page.nextBeforeSeq === null) break;
    beforeSeq = page.nextBeforeSeq;
    await yieldToRequests();
  }

  // Pass 2: the pages again, oldest first, each written oldest first.
  for (let i = bounds.length - 1; i >= 0; i--) {
    const lowest = bounds[i + 1] ?? 0;
    const page = await read(bounds[i]);
    let chunk = '';
    for (let r = page.records.length - 1; r >= 0; r--) {
      const record = page.records[r]!;
      // A page read again reaches lower when records of it were removed meanwhile (an erasure):
      // what lies below its bound is the next page's.
      if (record.seq < lowest) continue;
      const text = line(format, record);
      if (text === null) continue;
      chunk += text;
      progress.count++;
    }
    if (chunk !== '') yield chunk;
    await yieldToRequests();
  }
  progress.complete = true;
}

/**
 * The export as a byte stream: a Readable pulls the next page only when what it holds is taken
 * (a page is more than its buffer), so a client that reads slowly, or not at all, holds one page.
 */
export function exportStream(...args: Parameters<typeof exportChunks>): Readable {
  return Readable.from(exportChunks(...args), { objectMode: false });
}

/** The file name offered: the Store, what it holds and when, e.g. `main-statements-2026-11-26T18-00-00Z.csv`. */
export function exportFileName(store: StoreRecord, format: ExportFormat, now: Date = new Date()): string {
  const at = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return `${store.slug}-statements-${at}.${format}`;
}

export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};
