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
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { opPayload } from './ops';
import type { Op } from './ops';

const RECORD_HEADER_BYTES = 8;
/** Far above any real batch; a larger length can only be a corrupt header. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

export interface JournalRecord {
  j: number;
  op: Op;
}

export function encodeRecord(record: JournalRecord): Buffer {
  // The payload's parts go one after another into the record's one buffer: strings as UTF-8, bytes as they are.
  const parts = [`{"j":${record.j},"op":`, ...opPayload(record.op), '}'];
  let length = 0;
  for (const part of parts) length += typeof part === 'string' ? Buffer.byteLength(part) : part.byteLength;
  if (length > MAX_RECORD_BYTES) throw new RangeError(`journal record of ${length} bytes exceeds ${MAX_RECORD_BYTES}`);
  const buf = Buffer.allocUnsafe(RECORD_HEADER_BYTES + length);
  let at = RECORD_HEADER_BYTES;
  for (const part of parts) {
    if (typeof part === 'string') {
      at += buf.write(part, at, 'utf8');
    } else {
      buf.set(part, at);
      at += part.byteLength;
    }
  }
  buf.writeUInt32LE(length, 0);
  buf.writeUInt32LE(crc32(buf.subarray(RECORD_HEADER_BYTES)), 4);
  return buf;
}

/** The first bytes of every record's payload (encodeRecord): where a scan past damage looks. */
const PAYLOAD_START = Buffer.from('{"j":');

/** One record and where it lies in its file. */
export interface RecordAt {
  record: JournalRecord;
  offset: number;
  /** Bytes of the whole record, header included. */
  length: number;
}

/** The record that starts at `offset`, or why none does; never throws on bad input. */
function readRecordAt(bytes: Buffer, offset: number): RecordAt | string {
  if (bytes.length - offset < RECORD_HEADER_BYTES) return 'short record header';
  const length = bytes.readUInt32LE(offset);
  const crc = bytes.readUInt32LE(offset + 4);
  if (length === 0 || length > MAX_RECORD_BYTES) return `bad record length ${length}`;
  const end = offset + RECORD_HEADER_BYTES + length;
  if (end > bytes.length) return 'short record';
  const payload = bytes.subarray(offset + RECORD_HEADER_BYTES, end);
  if (crc32(payload) !== crc) return 'bad record checksum';
  let record: unknown;
  try {
    record = JSON.parse(payload.toString('utf8'));
  } catch {
    return 'unreadable record';
  }
  if (!isRecord(record)) return 'malformed record';
  return { record, offset, length: end - offset };
}

/**
 * The next whole record after damage at `from`, with a journal seq above `afterSeq`, or null when
 * none follows: then the damage is a torn tail. Records carry their length and checksum, so a
 * record found this way is one that was written whole; only offsets where a payload could start
 * are tried, which keeps a scan of megabytes to milliseconds.
 */
export function findNextRecord(buf: Uint8Array, from: number, afterSeq: number): RecordAt | null {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let at = bytes.indexOf(PAYLOAD_START, from + RECORD_HEADER_BYTES); at >= 0; at = bytes.indexOf(PAYLOAD_START, at + 1)) {
    const found = readRecordAt(bytes, at - RECORD_HEADER_BYTES);
    if (typeof found !== 'string' && found.record.j > afterSeq) return found;
  }
  return null;
}

/** A run of bytes between whole records that holds no readable record. */
interface DamagedSpan {
  offset: number;
  /** Where the next whole record starts, or the file's end. */
  end: number;
  reason: string;
  /** The seq of the last whole record before it (0: none), and of the first after it (null: none). */
  seqBefore: number;
  seqAfter: number | null;
}

export interface SurveyedJournal {
  records: RecordAt[];
  damage: DamagedSpan[];
}

/**
 * Every whole record of a file, reading on past damage to the next whole record (repair and
 * check-data use it; opening stops at the first damage, decodeJournal).
 */
export function surveyJournal(buf: Uint8Array): SurveyedJournal {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const records: RecordAt[] = [];
  const damage: DamagedSpan[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const found = readRecordAt(bytes, offset);
    if (typeof found !== 'string') {
      records.push(found);
      offset += found.length;
      continue;
    }
    const seqBefore = records.at(-1)?.record.j ?? 0;
    const next = findNextRecord(bytes, offset, seqBefore);
    damage.push({ offset, end: next?.offset ?? bytes.length, reason: found, seqBefore, seqAfter: next?.record.j ?? null });
    if (!next) break;
    offset = next.offset;
  }
  return { records, damage };
}

/** Statement ids named in damaged bytes, where the text can still be read. */
export function statementIdsIn(buf: Uint8Array): string[] {
  const text = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1');
  return [...new Set([...text.matchAll(/"statementId":"([0-9a-fA-F-]{36})"/g)].map((match) => match[1]!))];
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
  while (offset < bytes.length) {
    const found = readRecordAt(bytes, offset);
    if (typeof found === 'string') return { records, goodBytes: offset, damage: `${found} at byte ${offset}` };
    records.push(found.record);
    offset += found.length;
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

/** The first journal seq a journal file (a path or a name) may hold, from its name. */
export function journalFirstSeq(file: string): number {
  const match = JOURNAL_NAME.exec(path.basename(file));
  if (!match) throw new Error(`not a journal file name: ${file}`);
  return Number(match[1]);
}

export function isJournalFileName(name: string): boolean {
  return JOURNAL_NAME.test(name);
}
