/**
 * An export of what an Explorer filter shows, as NDJSON or CSV, read from the Store a page at a
 * time (newest first, by seq, as the Explorer pages) so memory holds one page whatever the Store's
 * size: the caller pulls the next page only when the client has taken the last (a Readable of this
 * generator, piped with backpressure). The reads stop at the durable seq, as every Explorer read.
 *
 * NDJSON is the statements as stored, one a line and nothing else (what GET /statements answers
 * and what an NDJSON import reads back): accepted and voided ones only, a rejected entry is no
 * statement. CSV is one row per record, rejected ones included, with its status (statement-csv.ts).
 */
import { Readable } from 'node:stream';
import type { ExplorerQuery, ExplorerRecord, Storage, StoreRecord } from '../storage/storage';
import { CSV_HEADER, csvRow } from './statement-csv';

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
  let beforeSeq: number | undefined;
  for (;;) {
    const page = await storage.searchExplorer(store.id, { ...filter, limit: pageSize, beforeSeq });
    let chunk = '';
    for (const record of page.records) {
      const text = line(format, record);
      if (text === null) continue;
      chunk += text;
      progress.count++;
    }
    if (chunk !== '') yield chunk;
    if (page.nextBeforeSeq === null) {
      progress.complete = true;
      return;
    }
    beforeSeq = page.nextBeforeSeq;
    // Other requests run between pages, whatever pace the client reads at.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
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
