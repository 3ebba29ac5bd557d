/**
 * The journal's record framing. A journal file is a sequence of records:
 *
 *   u32 LE  payload length in bytes (1 .. MAX_RECORD_BYTES)
 *   u32 LE  CRC-32 (zlib) of the payload
 *   payload UTF-8 JSON: {"j": <journal seq>, "op": <logical operation>}
 *
 * Journal seqs increase by one per record across files; the snapshot's meta table holds the last
 * one it contains, so replay skips what the snapshot already has.
 */
import { crc32 } from 'node:zlib';
import { opJson } from './ops';
import type { Op } from './ops';

export const RECORD_HEADER_BYTES = 8;
/** Far above any real batch; a larger length can only be a corrupt header. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export interface JournalRecord {
  j: number;
  op: Op;
}

export function encodeRecord(record: JournalRecord): Buffer {
  const json = `{"j":${record.j},"op":${opJson(record.op)}}`;
  const length = Buffer.byteLength(json);
  if (length > MAX_RECORD_BYTES) throw new RangeError(`journal record of ${length} bytes exceeds ${MAX_RECORD_BYTES}`);
  const buf = Buffer.allocUnsafe(RECORD_HEADER_BYTES + length);
  buf.write(json, RECORD_HEADER_BYTES, 'utf8');
  buf.writeUInt32LE(length, 0);
  buf.writeUInt32LE(crc32(buf.subarray(RECORD_HEADER_BYTES)), 4);
  return buf;
}

export interface DecodedJournal {
  records: JournalRecord[];
  /** Bytes from the start of the file up to the end of the last good record. */
  goodBytes: number;
  /** Why decoding stopped before the end of the buffer, when it did. */
  damage: string | null;
}

/** Reads records until the end or the first torn or corrupt one; never throws on bad input. */
export function decodeJournal(buf: Uint8Array): DecodedJournal {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const records: JournalRecord[] = [];
  let offset = 0;
  const stop = (damage: string): DecodedJournal => ({ records, goodBytes: offset, damage: `${damage} at byte ${offset}` });
  while (offset < bytes.length) {
    if (bytes.length - offset < RECORD_HEADER_BYTES) return stop('short record header');
    const length = bytes.readUInt32LE(offset);
    const crc = bytes.readUInt32LE(offset + 4);
    if (length === 0 || length > MAX_RECORD_BYTES) return stop(`bad record length ${length}`);
    const end = offset + RECORD_HEADER_BYTES + length;
    if (end > bytes.length) return stop('short record');
    const payload = bytes.subarray(offset + RECORD_HEADER_BYTES, end);
    if (crc32(payload) !== crc) return stop('bad record checksum');
    let record: unknown;
    try {
      record = JSON.parse(payload.toString('utf8'));
    } catch {
      return stop('unreadable record');
    }
    if (!isRecord(record)) return stop('malformed record');
    records.push(record);
    offset = end;
  }
  return { records, goodBytes: offset, damage: null };
}

function isRecord(value: unknown): value is JournalRecord {
  if (typeof value !== 'object' || value === null) return false;
  const { j, op } = value as { j?: unknown; op?: unknown };
  return (
    typeof j === 'number' &&
    Number.isSafeInteger(j) &&
    j > 0 &&
    typeof op === 'object' &&
    op !== null &&
    typeof (op as { t?: unknown }).t === 'string'
  );
}

const JOURNAL_NAME = /^journal-(\d{16})\.log$/;

/** Journal files are named after the first journal seq they may hold, so names sort in order. */
export function journalFileName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(16, '0')}.log`;
}

export function isJournalFileName(name: string): boolean {
  return JOURNAL_NAME.test(name);
}
