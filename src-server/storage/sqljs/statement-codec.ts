/**
 * The statement column's compact form: the statement's JSON text (UTF-8) compressed against a
 * fixed dictionary of xAPI vocabulary (property names, ADL verb and activity-type IRIs, the shape
 * of an LRS-set tail), stored as a BLOB. A 1.4 KB statement takes about a third of its text, and a
 * row of `statements` fits several to a 4 KiB page instead of two.
 *
 * Why not zlib: node:zlib builds a stream per call (the sync API cannot reuse one), which cost
 * 30–60× a JSON.stringify of the statement per call here; this is LZ77 without entropy coding, a
 * pass over the bytes with a hash table seeded from the dictionary once, decoded by copying.
 *
 * The text is also compressed against its own row: the statement id, `stored` and the key id,
 * columns every read of a statement selects anyway, each of which the statement repeats (its id,
 * its stored time, its authority's account name). Those columns never change once written.
 *
 * A persistent format: rows keep it for as long as they live. Byte 0 names the dictionary
 * (FORMAT_V1); a varint gives the text's byte length; then sequences of
 * - a literal run: a byte 0..127 (n - 1), then n bytes as they are;
 * - a match: a byte 128 + (length - MIN_MATCH), then the distance back (1..65535) as two bytes
 *   big-endian, into the window: DICTIONARY_V1, then the row's context (rowContext), then the
 *   text decoded so far.
 * Never change DICTIONARY_V1: a new dictionary is a new format byte, and decode keeps the old.
 * Rows written before this form hold TEXT, which `statementText` passes through unchanged.
 */
import type { Sql } from './sql';
import { asBuffer } from '../../xapi/json-text';

/** Generic xAPI vocabulary, most frequent last (nearest, so shortest distances). */
const DICTIONARY_V1_TEXT = [
  '"attachments":[{"usageType":"http://adlnet.gov/expapi/attachments/signature","display":{"en-US":"","contentType":"application/octet-stream","length":,"sha2":"',
  '"objectType":"SubStatement","objectType":"StatementRef","objectType":"Group","member":[{"objectType":"Agent","name":"',
  '"openid":"","mbox_sha1sum":"',
  '"interactionType":"choice","correctResponsesPattern":["","choices":[{"id":"","description":{"en-US":"',
  '"moreInfo":"https://',
  '"revision":"","team":{"instructor":{',
  'http://adlnet.gov/expapi/verbs/voided","display":{"en-US":"voided"}}',
  'http://id.tincanapi.com/',
  'https://w3id.org/xapi/',
  'http://adlnet.gov/expapi/activities/course","http://adlnet.gov/expapi/activities/module","http://adlnet.gov/expapi/activities/assessment",' +
    '"http://adlnet.gov/expapi/activities/interaction","http://adlnet.gov/expapi/activities/lesson","http://adlnet.gov/expapi/activities/media"',
  '"statement":{"objectType":"StatementRef","id":"',
  ...['launched', 'initialized', 'terminated', 'progressed', 'interacted', 'attempted', 'experienced', 'answered', 'completed', 'passed', 'failed'].map(
    (verb) => `http://adlnet.gov/expapi/verbs/${verb}","display":{"en-US":"${verb}"}}`,
  ),
  '"result":{"score":{"scaled":0.,"raw":,"min":0,"max":100},"success":true,"success":false,"completion":true,"completion":false,"response":"","duration":"PT',
  '"context":{"registration":"","contextActivities":{"parent":[{"objectType":"Activity","id":"https://"}],"grouping":[{"objectType":"Activity","id":"https://"}],' +
    '"category":[{"id":"https://w3id.org/xapi/scorm"}],"other":[{"id":"https://"}]},"platform":"","language":"en-US","extensions":{"https://',
  '"object":{"objectType":"Activity","id":"https://","definition":{"name":{"en-US":"","description":{"en-US":"","type":"http://adlnet.gov/expapi/activities/',
  '{"id":"00000000-0000-4000-8000-000000000000","actor":{"objectType":"Agent","name":"","mbox":"mailto:","account":{"homePage":"https://","name":"',
  '"verb":{"id":"http://adlnet.gov/expapi/verbs/',
  '"},"timestamp":"2026-01-01T00:00:00.000Z","stored":"2026-01-01T00:00:00.000Z","authority":{"objectType":"Agent","name":"","account":{"homePage":"http://","name":"lore_live_lore_test_"}},"version":"1.0.0"}',
].join('');

const FORMAT_V1 = 1;
const DICTIONARY_V1 = Buffer.from(DICTIONARY_V1_TEXT, 'utf8');
const MIN_MATCH = 4;
const MAX_MATCH = MIN_MATCH + 127;
const MAX_DISTANCE = 65535;
const MAX_LITERALS = 128;
const HASH_BITS = 13;
/** How many earlier positions with the same hash are tried for the longest match. */
const CHAIN_DEPTH = 8;
/** How many positions of a match are added to the hash chains (the encoder's choice: decoding does not depend on it). */
const INSERTED_PER_MATCH = 2;

/**
 * The hash of the 4 bytes at `at` (little-endian). Read through a DataView: one load where four
 * byte loads and shifts cost a sixth of the encoding.
 */
function hashAt(bytes: DataView, at: number): number {
  return Math.imul(bytes.getUint32(at, true), 2654435761) >>> (32 - HASH_BITS);
}

/**
 * The dictionary's hash chains, computed once: `head` holds the last dictionary position of each
 * hash (or -1), `prev` the previous position of the same hash. Encoding starts from copies.
 */
function dictionaryChains(dictionary: Uint8Array): { head: Int32Array; prev: Int32Array } {
  const head = new Int32Array(1 << HASH_BITS).fill(-1);
  const prev = new Int32Array(dictionary.length);
  const view = new DataView(dictionary.buffer, dictionary.byteOffset, dictionary.byteLength);
  for (let at = 0; at + MIN_MATCH <= dictionary.length; at++) {
    const h = hashAt(view, at);
    prev[at] = head[h]!;
    head[h] = at;
  }
  return { head, prev };
}

const CHAINS_V1 = dictionaryChains(DICTIONARY_V1);

/**
 * Encodes statements into the compact form. Keeps its work buffers from one statement to the next:
 * allocating typed arrays of a few KB per statement cost more than the encoding itself.
 */
export class StatementEncoder {
  private readonly head = new Int32Array(1 << HASH_BITS);
  /** The dictionary, then the text; positions index it. */
  private window = new Uint8Array(0);
  /** The window's bytes read 4 at a time (hashAt, the comparison of a match). */
  private view = new DataView(new ArrayBuffer(0));
  private prev = new Int32Array(0);
  private out = Buffer.alloc(0);

  /**
   * The compact form of a statement's UTF-8 text (a Buffer: small ones come from Node's pool);
   * `context` is its row's (rowContext), which decoding needs again.
   */
  encode(text: Uint8Array, context: Uint8Array): Uint8Array {
    const dictLength = DICTIONARY_V1.length + context.length;
    const end = dictLength + text.length;
    this.reserve(end, text.length);
    const { head, prev, window, view, out } = this;
    window.set(context, DICTIONARY_V1.length);
    window.set(text, dictLength);
    head.set(CHAINS_V1.head);
    for (let at = DICTIONARY_V1.length; at < dictLength && at + MIN_MATCH <= end; at++) {
      const h = hashAt(view, at);
      prev[at] = head[h]!;
      head[h] = at;
    }
    let o = 0;
    out[o++] = FORMAT_V1;
    for (let n = text.length; ; n = Math.floor(n / 128)) {
      if (n < 128) {
        out[o++] = n;
        break;
      }
      out[o++] = 0x80 | (n & 0x7f);
    }
    let literalStart = dictLength;
    let at = dictLength;
    while (at + MIN_MATCH <= end) {
      let bestLength = 0;
      let bestFrom = 0;
      const limit = Math.min(MAX_MATCH, end - at);
      let candidate = head[hashAt(view, at)]!;
      for (let tries = 0; candidate >= 0 && tries < CHAIN_DEPTH && at - candidate <= MAX_DISTANCE; tries++) {
        if (window[candidate + bestLength] === window[at + bestLength]) {
          let length = 0;
          // 4 bytes a step, then the last few one by one: matches run 16 bytes on average.
          while (length + 4 <= limit && view.getUint32(candidate + length) === view.getUint32(at + length)) length += 4;
          while (length < limit && window[candidate + length] === window[at + length]) length++;
          if (length > bestLength) {
            bestLength = length;
            bestFrom = candidate;
            if (length === limit) break;
          }
        }
        candidate = prev[candidate]!;
      }
      if (bestLength < MIN_MATCH) {
        const h = hashAt(view, at);
        prev[at] = head[h]!;
        head[h] = at;
        at++;
        continue;
      }
      o = this.literals(literalStart, at, o);
      const distance = at - bestFrom;
      out[o++] = 0x80 | (bestLength - MIN_MATCH);
      out[o++] = distance >>> 8;
      out[o++] = distance & 0xff;
      const next = at + bestLength;
      // Only the first positions of a match go into the hash chains: inserting all of them cost a
      // third of the encoding for 1% of the size (shorter chains are also quicker to search).
      for (const stopInsert = Math.min(next, at + INSERTED_PER_MATCH); at < stopInsert && at + MIN_MATCH <= end; at++) {
        const h = hashAt(view, at);
        prev[at] = head[h]!;
        head[h] = at;
      }
      at = next;
      literalStart = next;
    }
    o = this.literals(literalStart, end, o);
    const encoded = Buffer.allocUnsafe(o);
    out.copy(encoded, 0, 0, o);
    return encoded;
  }

  /** Writes window[from, until) as literal runs at out[o]; returns the new end of out. */
  private literals(from: number, until: number, o: number): number {
    const { out, window } = this;
    for (let start = from; start < until; start += MAX_LITERALS) {
      const n = Math.min(MAX_LITERALS, until - start);
      out[o++] = n - 1;
      // A loop, not set(subarray()): runs are short, and a view per run costs more than the copy.
      for (let k = 0; k < n; k++) out[o++] = window[start + k]!;
    }
    return o;
  }

  private reserve(windowLength: number, textLength: number): void {
    if (this.window.length < windowLength) {
      const size = Math.max(windowLength, DICTIONARY_V1.length + 4096, this.window.length * 2);
      this.window = new Uint8Array(size);
      this.view = new DataView(this.window.buffer, this.window.byteOffset, this.window.byteLength);
      this.window.set(DICTIONARY_V1);
      this.prev = new Int32Array(size);
      this.prev.set(CHAINS_V1.prev);
    }
    // Worst case: every byte a literal, one control byte per 128, and the header.
    const outLength = textLength + Math.ceil(textLength / MAX_LITERALS) + 16;
    if (this.out.length < outLength) this.out = Buffer.alloc(Math.max(outLength, this.out.length * 2));
  }
}

const damaged = () => new Error('a damaged statement: its compact form does not decode');

/** The statement's JSON text from its compact form and its row's context (rowContext). */
export function decodeStatement(bytes: Uint8Array, context: Uint8Array): string {
  return decodeStatementUtf8(bytes, context).toString('utf8');
}

/**
 * Runs at least this long are copied by one Buffer#copy (a native memmove); shorter ones byte by
 * byte, which costs less than the call. Runs average 7–20 bytes: decoding a page of statements
 * byte by byte was a quarter of a filtered GET's CPU; copying runs takes a third off the decoding.
 */
const BULK_COPY = 8;

/** Copies source[from, from + n) to out[o]. */
function copyRun(source: Buffer, from: number, n: number, out: Buffer, o: number): void {
  if (n >= BULK_COPY) source.copy(out, o, from, from + n);
  else for (let k = 0; k < n; k++) out[o + k] = source[from + k]!;
}

/** decodeStatement's text as the UTF-8 bytes it is decoded to: what an answer writes as it is. */
function decodeStatementUtf8(compact: Uint8Array, rowContextBytes: Uint8Array): Buffer {
  const bytes = asBuffer(compact);
  const context = asBuffer(rowContextBytes);
  if (bytes[0] !== FORMAT_V1) throw new Error(`unknown statement format ${bytes[0]}`);
  let i = 1;
  let length = 0;
  for (let shift = 1; ; shift *= 128) {
    const byte = bytes[i++]!;
    length += (byte & 0x7f) * shift;
    if (byte < 0x80) break;
  }
  const dictionary = DICTIONARY_V1;
  const dictLength = dictionary.length;
  const prefixLength = dictLength + context.length;
  const out = Buffer.allocUnsafe(length);
  let o = 0;
  while (i < bytes.length) {
    const control = bytes[i++]!;
    if (control < 0x80) {
      const n = control + 1;
      if (i + n > bytes.length || o + n > length) throw damaged();
      copyRun(bytes, i, n, out, o);
      i += n;
      o += n;
      continue;
    }
    const stop = o + (control & 0x7f) + MIN_MATCH;
    const distance = (bytes[i]! << 8) | bytes[i + 1]!;
    if (i + 2 > bytes.length || stop > length || distance === 0 || distance > o + prefixLength) throw damaged();
    let from = o - distance;
    i += 2;
    // From the dictionary and the context while the distance reaches back into them (one match may
    // run from the dictionary into the context, and on into the text).
    while (from < 0 && o < stop) {
      const at = prefixLength + from;
      const inDictionary = at < dictLength;
      const n = Math.min(stop - o, -from, inDictionary ? dictLength - at : prefixLength - at);
      copyRun(inDictionary ? dictionary : context, inDictionary ? at : at - dictLength, n, out, o);
      o += n;
      from += n;
    }
    // From the text decoded so far: a match longer than its distance repeats its own start, so
    // only one that does not overlap what it writes is a single copy.
    const n = stop - o;
    if (n >= BULK_COPY && n <= distance) {
      out.copy(out, o, from, from + n);
      o = stop;
    }
    while (o < stop) out[o++] = out[from++]!;
  }
  if (o !== length) throw damaged();
  return out;
}

/**
 * The statement column's value as JSON text (a string) or as that text's UTF-8 bytes, whichever
 * costs nothing more: TEXT rows as they are, the compact form's bytes as decoded. An answer that
 * writes statements unchanged takes the bytes, so the text is neither made into a string nor
 * encoded back to UTF-8 on the socket.
 */
export function statementTextOrUtf8(value: unknown, row: RowContext): string | Buffer {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return decodeStatementUtf8(value, rowContext(row));
  throw new TypeError(`a statement column holds ${value === null ? 'NULL' : typeof value}`);
}

/** What a statement's compact form is compressed against besides the dictionary: columns of its row. */
export interface RowContext {
  statementId: string;
  stored: string;
  keyId: string;
}

/** The row's context as bytes: the statement id, stored and the key id, as their columns hold them. */
export function rowContext(row: RowContext): Uint8Array {
  return Buffer.from(`${row.statementId}${row.stored}${row.keyId}`, 'utf8');
}

/**
 * The statement column's value as JSON text: TEXT (rows written before the compact form) as it
 * is; the compact form decoded with its row's statement id, stored and key id.
 */
export function statementText(value: unknown, row: RowContext): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return decodeStatement(value, rowContext(row));
  throw new TypeError(`a statement column holds ${value === null ? 'NULL' : typeof value}`);
}

/**
 * The statement column's value for a statement's JSON text: the compact form, except for a
 * statement that declares attachments, kept as TEXT so that the deletion of statements finds the
 * statements declaring a payload by a scan of the text (statement-deletion.ts).
 */
export function statementColumn(encoder: StatementEncoder, text: string, bytes: Uint8Array, row: RowContext): string | Uint8Array {
  return text.includes('"attachments"') ? text : encoder.encode(bytes, rowContext(row));
}

/** A SHA-256 in hex (the signature's form) kept as its 32 bytes; anything else as it is ('' for one not computed). */
export function signatureColumn(signature: string): string | Uint8Array {
  return /^[0-9a-f]{64}$/.test(signature) ? Buffer.from(signature, 'hex') : signature;
}

/** The signature column's value as the hex text the write path compares (TEXT on older rows). */
export function signatureText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return asBuffer(value).toString('hex');
  throw new TypeError(`a signature column holds ${value === null ? 'NULL' : typeof value}`);
}

/**
 * SQL for a statement row's JSON text, for the few statements that read it in SQL (filling tables
 * added after rows existed: json_extract cannot read the compact form). TEXT rows are read as they
 * are; the others call `statement_text`, which registerStatementText adds.
 */
export const STATEMENT_TEXT_SQL = "(CASE typeof(statement) WHEN 'text' THEN statement ELSE statement_text(statement, statement_id, stored, key_id) END)";

/** Adds the SQL function `statement_text(statement, statement_id, stored, key_id)` (STATEMENT_TEXT_SQL) to a database. */
export function registerStatementText(sql: Sql): void {
  sql.db.create_function('statement_text', (value: unknown, statementId: unknown, stored: unknown, keyId: unknown) =>
    statementText(value, { statementId: String(statementId), stored: String(stored), keyId: String(keyId) }),
  );
}

/** Columns to select for a statement's text: the statement, then its row's context (statementTextAt). */
export const STATEMENT_AND_CONTEXT = 'statement, statement_id, stored, key_id';

/** The JSON text of a row whose columns from `at` on are STATEMENT_AND_CONTEXT. */
export function statementTextAt(row: readonly unknown[], at: number): string {
  return statementText(row[at], { statementId: row[at + 1] as string, stored: row[at + 2] as string, keyId: row[at + 3] as string });
}

/**
 * The `received` column's value (received.ts): the statement as received, in the compact form
 * compressed against the stored statement's text, which it mostly repeats (a few bytes where the
 * two differ); NULL when not kept.
 */
export function receivedColumn(encoder: StatementEncoder, received: string | null, statementBytes: Uint8Array): Uint8Array | null {
  return received === null ? null : encoder.encode(Buffer.from(received, 'utf8'), statementBytes);
}

/**
 * The `received` column's value as JSON text (TEXT on rows written before the compact form), or
 * null. The stored statement is its context: as text, or as the UTF-8 bytes it was decoded to.
 */
export function receivedText(value: unknown, statement: string | Uint8Array): string | null {
  if (value === null || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return decodeStatement(value, typeof statement === 'string' ? Buffer.from(statement, 'utf8') : statement);
  throw new TypeError(`a received column holds ${typeof value}`);
}
