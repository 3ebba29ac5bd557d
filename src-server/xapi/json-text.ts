/**
 * Reading JSON text without parsing it: the character codes of its structure, and where a string
 * ends. Shared by the body pre-scan (http/plugins/limits-json-scan.ts) and the cutting of members
 * out of a stored statement's text (received-statement.ts).
 */
export const QUOTE = 34;
const BACKSLASH = 92;
export const OPEN_OBJECT = 123;
export const CLOSE_OBJECT = 125;
export const OPEN_ARRAY = 91;
export const CLOSE_ARRAY = 93;
export const COMMA = 44;
export const COLON = 58;

/** Where the string opening at `start` closes (text.length when it does not): a native search, as most of a statement is strings. */
export function endOfString(text: string, start: number): number {
  let at = start;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    // Escaped when an odd number of backslashes precede it; each run is counted once, so the scan stays linear.
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

/** endOfString on UTF-8 bytes: a quote or backslash byte never occurs inside a multi-byte character. */
export function endOfStringUtf8(bytes: Uint8Array, start: number): number {
  let at = start;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return bytes.length;
    let slashes = 0;
    while (bytes[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

const COMMA_BYTES = Buffer.from(',');
/** An object's braces as UTF-8, for JSON written in pieces (joinedUtf8). */
export const OPEN_OBJECT_BYTES = Buffer.from('{');
export const CLOSE_OBJECT_BYTES = Buffer.from('}');

/**
 * JSON text in UTF-8 pieces made one Buffer: `open`, the items separated by commas (an item is one
 * piece or several), then `close`. A page of statements, or an object's members, written around
 * texts that are already JSON, without making a string of them.
 */
export function joinedUtf8(open: Uint8Array, items: ReadonlyArray<Uint8Array | readonly Uint8Array[]>, close: Uint8Array): Buffer {
  const parts: Uint8Array[] = [open];
  for (const [i, item] of items.entries()) {
    if (i > 0) parts.push(COMMA_BYTES);
    if (item instanceof Uint8Array) parts.push(item);
    else parts.push(...item);
  }
  parts.push(close);
  return Buffer.concat(parts);
}

/** Bytes (JSON text in UTF-8, say) as a Buffer over the same memory, without copying: sql.js gives plain Uint8Arrays. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}
