/** multipart/mixed reading and writing (RFC 2046 §5.1; xAPI 1.0.3 Part Three §1.5.2). */
import { describe, expect, it } from 'vitest';
import { buildMultipart, chooseBoundary, contentTypeParameter, mediaTypeOf, parseMultipart } from '../../src-server/xapi/multipart';

const TYPE = 'multipart/mixed; boundary=abc';
const body = (text: string) => Buffer.from(text, 'latin1');

describe('Content-Type values', () => {
  it('reads the media type without parameters, lower-cased', () => {
    expect(mediaTypeOf('Multipart/Mixed; boundary=x')).toBe('multipart/mixed');
    expect(mediaTypeOf(undefined)).toBe('');
  });

  it('reads a parameter, quoted or not, by its case-insensitive name', () => {
    expect(contentTypeParameter('multipart/mixed; boundary=abc', 'boundary')).toBe('abc');
    expect(contentTypeParameter('multipart/mixed; Boundary="a b;c"', 'boundary')).toBe('a b;c');
    expect(contentTypeParameter('multipart/mixed; charset=utf-8', 'boundary')).toBeUndefined();
  });
});

describe('parseMultipart', () => {
  it('splits parts with their headers (names lower-cased) and content', () => {
    const result = parseMultipart(body('--abc\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n--abc\r\nX-Experience-API-Hash: ff\r\n\r\nraw\r\n--abc--\r\n'), TYPE);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.parts).toHaveLength(2);
    expect(result.parts[0]!.headers).toEqual({ 'content-type': 'application/json' });
    expect(result.parts[0]!.body.toString()).toBe('{"a":1}');
    expect(result.parts[1]!.headers['x-experience-api-hash']).toBe('ff');
    expect(result.parts[1]!.body.toString()).toBe('raw');
  });

  it('keeps every byte of binary content, CR and LF included', () => {
    const binary = Buffer.from([0, 13, 10, 45, 45, 255, 13, 10, 13, 10, 1]);
    const raw = Buffer.concat([body('--abc\r\nContent-Type: application/octet-stream\r\n\r\n'), binary, body('\r\n--abc--')]);
    const result = parseMultipart(raw, TYPE);
    expect(result.ok && result.parts[0]!.body.equals(binary)).toBe(true);
  });

  it('ignores a preamble and an epilogue, and accepts a body opening with CRLF (as ADL signs)', () => {
    const result = parseMultipart(body('\r\n--abc\r\nContent-Type:application/json\r\n\r\n{}\r\n--abc--'), TYPE);
    expect(result.ok && result.parts[0]!.headers['content-type']).toBe('application/json');
    const withPreamble = parseMultipart(body('preamble\r\n--abc\r\n\r\nx\r\n--abc--\r\nepilogue'), TYPE);
    expect(withPreamble.ok && withPreamble.parts[0]!.body.toString()).toBe('x');
  });

  it('refuses a Content-Type without a boundary', () => {
    const result = parseMultipart(body('--abc\r\n\r\nx\r\n--abc--'), 'multipart/mixed;');
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('boundary parameter') });
  });

  it('refuses a body without the boundary and one cut before its closing boundary', () => {
    expect(parseMultipart(body('Content-Type: application/json\r\n\r\n{}'), TYPE).ok).toBe(false);
    expect(parseMultipart(body('--abc\r\nContent-Type: application/json\r\n\r\n{}'), TYPE)).toMatchObject({
      ok: false,
      message: expect.stringContaining('closing boundary'),
    });
  });

  it('refuses a part whose headers are not followed by an empty line', () => {
    const result = parseMultipart(body('--abc\r\nContent-Type: text/plain\r\nno blank line\r\n--abc--'), TYPE);
    expect(result.ok).toBe(false);
  });
});

describe('buildMultipart', () => {
  it('writes parts that parseMultipart reads back byte for byte', () => {
    const content = Buffer.from([0, 1, 2, 13, 10]);
    const boundary = chooseBoundary([{ body: content }]);
    const written = buildMultipart(boundary, [
      { headers: { 'Content-Type': 'application/json' }, body: Buffer.from('{"statements":[]}') },
      { headers: { 'Content-Type': 'image/png', 'X-Experience-API-Hash': 'aa' }, body: content },
    ]);
    const read = parseMultipart(written, `multipart/mixed; boundary=${boundary}`);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.parts[0]!.body.toString()).toBe('{"statements":[]}');
    expect(read.parts[1]!.headers['x-experience-api-hash']).toBe('aa');
    expect(read.parts[1]!.body.equals(content)).toBe(true);
  });

  it('chooses a boundary that occurs in no part', () => {
    const boundary = chooseBoundary([{ body: Buffer.from('plain text') }]);
    expect(boundary).toMatch(/^lore-[0-9a-f]{36}$/);
  });
});
