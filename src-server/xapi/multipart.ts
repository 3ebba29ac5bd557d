/**
 * multipart/mixed bodies (RFC 2046 §5.1), as xAPI uses them for statements with attachments
 * (1.0.3 Part Three §1.5.2; 2.0.0 Part Three §1.5.2): reading a request body, writing a response.
 *
 * Reading works on bytes (Buffer.indexOf), never on a decoded string, so binary parts keep every
 * byte. A delimiter is CRLF "--" boundary; the first one may open the body without the CRLF, and
 * whatever precedes it (the preamble) is ignored, as is whatever follows the closing delimiter
 * (the epilogue). A body without its closing delimiter is refused: it was cut short.
 */
import { randomBytes } from 'node:crypto';

export interface MultipartPart {
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: Buffer;
}

export type MultipartResult = { ok: true; parts: MultipartPart[] } | { ok: false; message: string };

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** RFC 2046 §5.1.1: 1 to 70 characters of a restricted set, not ending in a space. */
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The media type of a Content-Type value, lower-cased, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** One parameter of a Content-Type value (`boundary`, `charset`), unquoted; undefined when absent. */
export function contentTypeParameter(contentType: string, name: string): string | undefined {
  const pattern = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (const match of contentType.matchAll(pattern)) {
    if (match[1]!.toLowerCase() !== name) continue;
    const raw = match[2]!.trim();
    return raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return undefined;
}

/** Splits a multipart body; `contentType` is the request's Content-Type header. */
export function parseMultipart(body: Buffer, contentType: string): MultipartResult {
  const boundary = contentTypeParameter(contentType, 'boundary');
  if (boundary === undefined || boundary === '') {
    return { ok: false, message: 'Content-Type multipart/mixed needs a boundary parameter, such as "multipart/mixed; boundary=abc123"' };
  }
  if (!BOUNDARY.test(boundary)) {
    return { ok: false, message: `the multipart boundary "${boundary.slice(0, 80)}" is not valid (RFC 2046: 1 to 70 characters)` };
  }
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');
  const delimiter = Buffer.concat([CRLF, dashBoundary]);

  // The first delimiter: at the very start of the body, or after a preamble ending in CRLF.
  let position: number;
  if (body.subarray(0, dashBoundary.length).equals(dashBoundary)) {
    position = dashBoundary.length;
  } else {
    const found = body.indexOf(delimiter);
    if (found < 0) return { ok: false, message: `the body holds no multipart boundary "--${boundary}"` };
    position = found + delimiter.length;
  }

  const parts: MultipartPart[] = [];
  for (;;) {
    // After a delimiter: "--" closes the body; otherwise optional spaces and CRLF open a part.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return { ok: true, parts };
    let lineEnd = position;
    while (body[lineEnd] === 0x20 || body[lineEnd] === 0x09) lineEnd += 1;
    if (body[lineEnd] !== 0x0d || body[lineEnd + 1] !== 0x0a) {
      return { ok: false, message: `a multipart boundary line must end with CRLF (part ${parts.length + 1})` };
    }
    const partStart = lineEnd + 2;
    const next = body.indexOf(delimiter, partStart - 2);
    if (next < 0) return { ok: false, message: `the multipart body does not end with the closing boundary "--${boundary}--"` };
    const part = parsePart(body.subarray(partStart, Math.max(partStart, next)), next < partStart);
    if (!part.ok) return { ok: false, message: `${part.message} (part ${parts.length + 1})` };
    parts.push(part.part);
    position = next + delimiter.length;
  }
}

/** One part: header lines, an empty line, the content. `empty` when the part has no bytes at all. */
function parsePart(bytes: Buffer, empty: boolean): { ok: true; part: MultipartPart } | { ok: false; message: string } {
  const headers: Record<string, string> = {};
  if (empty) return { ok: true, part: { headers, body: Buffer.alloc(0) } };
  let headerText: string;
  let body: Buffer;
  if (bytes.subarray(0, 2).equals(CRLF)) {
    // No header lines (RFC 2046: the part is then text/plain).
    headerText = '';
    body = bytes.subarray(2);
  } else {
    const end = bytes.indexOf(HEADER_END);
    if (end >= 0) {
      headerText = bytes.subarray(0, end).toString('latin1');
      body = bytes.subarray(end + HEADER_END.length);
    } else if (bytes.subarray(-2).equals(CRLF)) {
      // Headers, the empty line, and no content: the empty line's CRLF is the delimiter's too.
      headerText = bytes.subarray(0, -2).toString('latin1');
      body = Buffer.alloc(0);
    } else {
      return { ok: false, message: 'a multipart part needs an empty line between its headers and its content' };
    }
  }
  for (const line of headerText === '' ? [] : headerText.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return { ok: false, message: `a multipart part has a malformed header line "${line.slice(0, 80)}"` };
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { ok: true, part: { headers, body } };
}

/** A boundary that cannot occur in the parts: random, and checked against them. */
export function chooseBoundary(parts: ReadonlyArray<{ body: Uint8Array }>): string {
  for (;;) {
    const boundary = `lore-${randomBytes(18).toString('hex')}`;
    const marker = Buffer.from(`--${boundary}`, 'latin1');
    if (parts.every((part) => Buffer.from(part.body.buffer, part.body.byteOffset, part.body.byteLength).indexOf(marker) < 0)) {
      return boundary;
    }
  }
}

/** Writes a multipart body: each part's headers as given, CRLF line ends, the closing delimiter. */
export function buildMultipart(boundary: string, parts: ReadonlyArray<{ headers: Record<string, string>; body: Uint8Array }>): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head = Object.entries(part.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n`, 'latin1'));
    chunks.push(Buffer.from(part.body.buffer, part.body.byteOffset, part.body.byteLength));
    chunks.push(CRLF);
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return Buffer.concat(chunks);
}
