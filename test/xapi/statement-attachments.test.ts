/** Attachments sent with statements: the parts and the Attachment objects (xAPI 1.0.3 Part Three §1.5). */
import { describe, expect, it } from 'vitest';
import type { MultipartPart } from '../../src-server/xapi/multipart';
import { checkAttachmentParts, partsOfStatement, readStatementParts } from '../../src-server/xapi/statement-attachments';
import type { AttachmentPart } from '../../src-server/xapi/statement-attachments';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { attachmentFor, sha256 } from '../http/statement-requests';

const jsonPart = (value: unknown): MultipartPart => ({ headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) });
const rawPart = (content: string, headers: Record<string, string> = {}): MultipartPart => ({
  headers: { 'content-type': 'text/plain', 'content-transfer-encoding': 'binary', 'x-experience-api-hash': sha256(content), ...headers },
  body: Buffer.from(content),
});
const part = (content: string): AttachmentPart => ({ sha2: sha256(content), contentType: 'text/plain', content: Buffer.from(content) });

function statementWith(attachments: Array<Record<string, unknown>>): Statement {
  return {
    actor: { mbox: 'mailto:ada@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/attended' },
    object: { id: 'http://example.com/meeting' },
    attachments,
  } as unknown as Statement;
}

describe('readStatementParts (§1.5.2)', () => {
  it('takes the statements from the first part and each attachment from the others', () => {
    const result = readStatementParts([jsonPart([{ a: 1 }]), rawPart('hello')]);
    expect(result).toMatchObject({ ok: true, body: [{ a: 1 }] });
    if (result.ok) expect(result.attachments).toEqual([{ sha2: sha256('hello'), contentType: 'text/plain', content: Buffer.from('hello') }]);
  });

  it('refuses a first part that is not application/json (XAPI-00134)', () => {
    const result = readStatementParts([{ headers: { 'content-type': 'text/plain' }, body: Buffer.from('{}') }]);
    expect(result).toMatchObject({ ok: false, issue: { message: expect.stringContaining('application/json') } });
  });

  it('refuses statements that are not JSON', () => {
    expect(readStatementParts([{ headers: { 'content-type': 'application/json' }, body: Buffer.from('{nope') }]).ok).toBe(false);
  });

  it('refuses a part without Content-Transfer-Encoding binary (XAPI-00135)', () => {
    const result = readStatementParts([jsonPart({}), rawPart('x', { 'content-transfer-encoding': 'base64' })]);
    expect(result).toMatchObject({ ok: false, issue: { message: expect.stringContaining('Content-Transfer-Encoding: binary') } });
  });

  it('refuses a part without X-Experience-API-Hash (XAPI-00132)', () => {
    const { 'x-experience-api-hash': _hash, ...headers } = rawPart('x').headers;
    const result = readStatementParts([jsonPart({}), { headers, body: Buffer.from('x') }]);
    expect(result).toMatchObject({ ok: false, issue: { message: expect.stringContaining('X-Experience-API-Hash') } });
  });

  it('refuses a part whose content does not hash to its X-Experience-API-Hash', () => {
    const result = readStatementParts([jsonPart({}), rawPart('x', { 'x-experience-api-hash': sha256('y') })]);
    expect(result).toMatchObject({ ok: false, issue: { message: expect.stringContaining('does not hash') } });
  });
});

describe('checkAttachmentParts (§1.5.1, §1.5.2)', () => {
  it('accepts Attachments with a fileUrl and no part', () => {
    const statement = statementWith([attachmentFor('x', { fileUrl: 'https://example.com/x.txt' })]);
    expect(checkAttachmentParts([statement], [], false)).toBeNull();
  });

  it('asks for multipart/mixed when an Attachment without fileUrl comes as application/json (XAPI-00129)', () => {
    const issue = checkAttachmentParts([statementWith([attachmentFor('x')])], [], false);
    expect(issue).toMatchObject({ field: 'attachments[0].sha2', message: expect.stringContaining('multipart/mixed') });
  });

  it('names the statement of a batch whose Attachment has no part', () => {
    const statements = [statementWith([attachmentFor('a')]), statementWith([attachmentFor('b')])];
    expect(checkAttachmentParts(statements, [part('a')], true)).toMatchObject({ field: 'attachments[0].sha2', statementIndex: 1 });
  });

  it('refuses a part that no Attachment names (XAPI-00128)', () => {
    const issue = checkAttachmentParts([statementWith([attachmentFor('a')])], [part('a'), part('extra')], false);
    expect(issue?.message).toContain('part 3');
  });

  it('lets statements share one part for the same attachment', () => {
    const statements = [statementWith([attachmentFor('same')]), statementWith([attachmentFor('same')])];
    expect(checkAttachmentParts(statements, [part('same')], true)).toBeNull();
  });

  it('gives each statement the parts its own Attachments name, each once', () => {
    const statement = statementWith([attachmentFor('a'), attachmentFor('a', { usageType: 'http://example.com/other' })]);
    expect(partsOfStatement(statement, [part('a'), part('b')]).map((p) => p.content.toString())).toEqual(['a']);
  });
});
