/**
 * Builders of statement requests for tests: multipart/mixed bodies with attachments (xAPI Part
 * Three §1.5.2) and JWS signatures (Part Two §2.6), made by hand so tests do not share code with
 * what they test.
 */
import { createHash, createHmac, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export const SIGNATURE_USAGE_TYPE = 'http://adlnet.gov/expapi/attachments/signature';
const BOUNDARY = 'test-boundary-7f3a9c';

export interface RawPart {
  headers: Record<string, string>;
  body: string | Buffer;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** An attachment's raw data as a multipart part, with the headers xAPI asks for. */
export function attachmentPart(content: string | Buffer, contentType = 'text/plain'): RawPart {
  return {
    headers: { 'Content-Type': contentType, 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha256(content) },
    body: content,
  };
}

/** The Attachment object describing `content`. */
export function attachmentFor(content: string | Buffer, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    usageType: 'http://example.com/attachment-usage/test',
    display: { 'en-US': 'A test attachment' },
    contentType: 'text/plain',
    length: Buffer.byteLength(content),
    sha2: sha256(content),
    ...overrides,
  };
}

/** A multipart/mixed body: the statements as JSON first, then the parts, CRLF line ends. */
export function multipartBody(statements: unknown, parts: RawPart[] = [], boundary = BOUNDARY): Buffer {
  const all: RawPart[] = [{ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(statements) }, ...parts];
  const chunks: Buffer[] = [];
  for (const part of all) {
    const head = Object.entries(part.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n`), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const MULTIPART_TYPE = `multipart/mixed; boundary=${BOUNDARY}`;

const HASHES: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512', HS256: 'sha256' };

/** A JWS in compact serialization of `payload` (an object, or a string taken as it is). */
export function signJws(
  payload: unknown,
  key: KeyObject,
  options: { alg?: string; header?: Record<string, unknown> } = {},
): string {
  const alg = options.alg ?? 'RS256';
  const header = Buffer.from(JSON.stringify({ alg, ...options.header })).toString('base64url');
  const body = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload)).toString('base64url');
  const input = `${header}.${body}`;
  const signature = alg.startsWith('HS')
    ? createHmac(HASHES[alg]!, key.export({ format: 'pem', type: 'pkcs8' })).update(input).digest()
    : sign(HASHES[alg]!, Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

/**
 * A signed statement request: the statement gets a signature Attachment, and the JWS travels as
 * its part. `payload` defaults to the statement before the signature was added (§2.6).
 */
export function signedStatementBody(
  statement: Record<string, unknown>,
  key: KeyObject,
  options: { alg?: string; header?: Record<string, unknown>; payload?: unknown; contentType?: string } = {},
): Buffer {
  const jws = signJws(options.payload ?? statement, key, options);
  const signed = {
    ...statement,
    attachments: [
      attachmentFor(jws, {
        usageType: SIGNATURE_USAGE_TYPE,
        display: { 'en-US': 'Signature' },
        contentType: options.contentType ?? 'application/octet-stream',
      }),
    ],
  };
  return multipartBody(signed, [attachmentPart(jws, 'application/octet-stream')]);
}

/** Splits a multipart response body: each part's headers (lower-cased names) and content. */
export function splitMultipart(body: Buffer, contentType: string): Array<{ headers: Record<string, string>; body: Buffer }> {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (!boundary) throw new Error(`no boundary in ${contentType}`);
  const text = body.toString('latin1');
  const sections = text.split(`--${boundary}`);
  if (!sections[sections.length - 1]!.startsWith('--')) throw new Error('no closing boundary');
  return sections.slice(1, -1).map((section) => {
    const headerEnd = section.indexOf('\r\n\r\n');
    const headers: Record<string, string> = {};
    for (const line of section.slice(2, headerEnd).split('\r\n')) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    return { headers, body: Buffer.from(section.slice(headerEnd + 4, -2), 'latin1') };
  });
}
