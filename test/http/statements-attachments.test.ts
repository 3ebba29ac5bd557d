/**
 * Statements with attachments over HTTP (xAPI 1.0.3 Part Three §1.5 and §2.1; 2.0.0 the same):
 * multipart/mixed POST and PUT, the checks between parts and Attachments, signed statements, and
 * GET with attachments=true.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MULTIPART_TYPE,
  attachmentFor,
  attachmentPart,
  multipartBody,
  sha256,
  signedStatementBody,
  splitMultipart,
} from './statement-requests';
import { statement, useDemoStore } from './test-app';

const demo = useDemoStore();

const send = (method: 'POST' | 'PUT', payload: Buffer | string, contentType: string, query = '', version = '1.0.3') =>
  demo.t.xapi(demo.key, { method, url: `/demo/xAPI/statements${query}`, payload, headers: { 'content-type': contentType }, version });
const get = (query: string) => demo.t.xapi(demo.key, { method: 'GET', url: `/demo/xAPI/statements${query}` });

const certificate = 'Certificate of completion\r\n--not a boundary--\r\n';
const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

describe('POST and PUT with multipart/mixed', () => {
  it('stores a statement with two raw attachments and answers its id', async () => {
    const id = randomUUID();
    const body = multipartBody(statement({ id, attachments: [attachmentFor(certificate), attachmentFor(image, { contentType: 'image/png' })] }), [
      attachmentPart(certificate),
      attachmentPart(image, 'image/png'),
    ]);
    const response = await send('POST', body, MULTIPART_TYPE);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([id]);
  });

  it('stores a statement by PUT with its attachment and answers 204', async () => {
    const id = randomUUID();
    const body = multipartBody(statement({ attachments: [attachmentFor(certificate)] }), [attachmentPart(certificate)]);
    expect((await send('PUT', body, MULTIPART_TYPE, `?statementId=${id}`)).statusCode).toBe(204);
    expect((await get(`?statementId=${id}`)).statusCode).toBe(200);
  });

  it('accepts multipart/mixed with no attachments at all, and fileUrl-only attachments without parts', async () => {
    expect((await send('POST', multipartBody(statement()), MULTIPART_TYPE)).statusCode).toBe(200);
    const byUrl = statement({ attachments: [attachmentFor(certificate, { fileUrl: 'https://example.com/c.txt' })] });
    expect((await send('POST', multipartBody(byUrl), MULTIPART_TYPE)).statusCode).toBe(200);
  });

  it('answers 400 for an Attachment without fileUrl sent as application/json, naming its sha2 (§1.5.1)', async () => {
    const response = await send('POST', JSON.stringify(statement({ attachments: [attachmentFor(certificate)] })), 'application/json');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_attachment', field: 'attachments[0].sha2' });
  });

  it('answers 400 when a part is missing, is extra, or does not match its hash', async () => {
    const described = statement({ attachments: [attachmentFor(certificate)] });
    const missing = await send('POST', multipartBody(described), MULTIPART_TYPE);
    expect(missing.statusCode).toBe(400);
    const extra = await send('POST', multipartBody(described, [attachmentPart(certificate), attachmentPart('surplus')]), MULTIPART_TYPE);
    expect(extra.statusCode).toBe(400);
    const forged = attachmentPart('something else');
    forged.headers['X-Experience-API-Hash'] = sha256(certificate);
    expect((await send('POST', multipartBody(described, [forged]), MULTIPART_TYPE)).statusCode).toBe(400);
  });

  it('answers 400 for a part not sent as binary, or without X-Experience-API-Hash (XAPI-00135, XAPI-00132)', async () => {
    const described = statement({ attachments: [attachmentFor(certificate)] });
    const base64 = attachmentPart(certificate);
    base64.headers['Content-Transfer-Encoding'] = 'base64';
    expect((await send('POST', multipartBody(described, [base64]), MULTIPART_TYPE)).statusCode).toBe(400);
    const unnamed = attachmentPart(certificate);
    delete unnamed.headers['X-Experience-API-Hash'];
    expect((await send('POST', multipartBody(described, [unnamed]), MULTIPART_TYPE)).statusCode).toBe(400);
  });

  it('answers 400 for a body without a boundary, or without its boundary in the header (XAPI-00130, XAPI-00131)', async () => {
    const body = multipartBody(statement());
    expect((await send('POST', body, 'multipart/mixed')).statusCode).toBe(400);
    const withoutFirstBoundary = body.subarray(body.indexOf('\r\n') + 2);
    expect((await send('POST', withoutFirstBoundary, MULTIPART_TYPE)).statusCode).toBe(400);
    expect((await send('POST', Buffer.from('Content-Type: application/json\r\n\r\n{}'), MULTIPART_TYPE)).statusCode).toBe(400);
  });

  it('answers 400, naming Content-Type, for any other content type, multipart/form-data included (XAPI-00127)', async () => {
    for (const type of ['multipart/form-data; boundary=test-boundary-7f3a9c', 'text/plain', 'application/xml']) {
      const response = await send('POST', JSON.stringify(statement()), type);
      expect(response.statusCode, type).toBe(400);
      expect(response.json().error.field).toBe('Content-Type');
    }
  });
});

describe('signed statements over HTTP (Part Two §2.6)', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  it('stores a statement signed with RS256 and keeps its signature for attachments=true', async () => {
    const id = randomUUID();
    const response = await send('POST', signedStatementBody(statement({ id }), privateKey), MULTIPART_TYPE);
    expect(response.statusCode).toBe(200);
    const read = await get(`?statementId=${id}&attachments=true`);
    const parts = splitMultipart(read.rawPayload, read.headers['content-type'] as string);
    expect(parts).toHaveLength(2);
    expect(parts[1]!.body.toString().split('.')).toHaveLength(3);
  });

  it('answers 400 with invalid_signature for HS256, a foreign payload, or a signature typed text/plain', async () => {
    const cases = [
      signedStatementBody(statement(), privateKey, { alg: 'HS256' }),
      signedStatementBody(statement(), privateKey, { payload: statement({ verb: { id: 'http://example.com/other' } }) }),
      signedStatementBody(statement(), privateKey, { contentType: 'text/plain' }),
    ];
    for (const body of cases) {
      const response = await send('POST', body, MULTIPART_TYPE);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_signature');
    }
  });
});

describe('GET with attachments=true (Part Three §2.1.3)', () => {
  it('answers multipart/mixed: the statement first, then each attachment with its hash', async () => {
    const id = randomUUID();
    const described = statement({ id, attachments: [attachmentFor(certificate), attachmentFor(image, { contentType: 'image/png' })] });
    await send('POST', multipartBody(described, [attachmentPart(certificate), attachmentPart(image, 'image/png')]), MULTIPART_TYPE);

    const response = await get(`?statementId=${id}&attachments=true`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^multipart\/mixed; boundary=/);
    expect(response.headers['x-experience-api-consistent-through']).toBeDefined();
    const [first, ...rest] = splitMultipart(response.rawPayload, response.headers['content-type'] as string);
    expect(first!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(first!.body.toString()).id).toBe(id);
    const byHash = new Map(rest.map((part) => [part.headers['x-experience-api-hash'], part]));
    expect(byHash.get(sha256(certificate))?.body.toString()).toBe(certificate);
    expect(byHash.get(sha256(image))?.body.equals(image)).toBe(true);
    expect(byHash.get(sha256(image))?.headers).toMatchObject({ 'content-type': 'image/png', 'content-transfer-encoding': 'binary' });
  });

  it('answers a StatementResult in the first part for a query, and keeps attachments=true on the more link', async () => {
    for (let i = 0; i < 2; i += 1) {
      const content = `attachment ${i}`;
      await send('POST', multipartBody(statement({ attachments: [attachmentFor(content)] }), [attachmentPart(content)]), MULTIPART_TYPE);
    }
    const page = await get('?attachments=true&limit=1');
    const [first, second] = splitMultipart(page.rawPayload, page.headers['content-type'] as string);
    const result = JSON.parse(first!.body.toString());
    expect(result.statements).toHaveLength(1);
    expect(second!.body.toString()).toBe('attachment 1');
    const next = await demo.t.xapi(demo.key, { method: 'GET', url: result.more });
    expect(next.headers['content-type']).toMatch(/^multipart\/mixed/);
    expect(splitMultipart(next.rawPayload, next.headers['content-type'] as string)[1]!.body.toString()).toBe('attachment 0');
  });

  it('answers plain JSON when attachments is false or absent', async () => {
    const response = await get('?attachments=false');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toHaveProperty('statements');
  });
});
