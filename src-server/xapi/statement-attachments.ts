/**
 * Attachments sent with statements (xAPI 1.0.3 Part Two §2.4.11 and Part Three §1.5; 2.0.0 the
 * same sections): which request shapes carry them, and whether the raw parts and the statements'
 * Attachment objects agree.
 *
 * - application/json: no raw data travels, so every Attachment needs a fileUrl (§1.5.1).
 * - multipart/mixed (§1.5.2): the first part is the statements, Content-Type application/json;
 *   every other part is one attachment's raw data, with Content-Transfer-Encoding binary and an
 *   X-Experience-API-Hash naming the sha2 of an Attachment in those statements. An Attachment
 *   without fileUrl must have its part; a part no Attachment names is refused (XAPI-00128).
 *   A part whose bytes do not hash to its X-Experience-API-Hash is refused too: it is not the
 *   attachment it claims to be.
 * Parts are matched by sha2, so statements sharing one attachment share one part.
 */
import { createHash } from 'node:crypto';
import type { MultipartPart } from './multipart';
import { mediaTypeOf } from './multipart';
import { describeJsonSyntaxFault } from './json-syntax-error';
import type { XapiIssue } from './issue';
import type { Attachment, Statement } from './statement-schema';

export const SIGNATURE_USAGE_TYPE = 'http://adlnet.gov/expapi/attachments/signature';

/** One attachment's raw data, as received. */
export interface AttachmentPart {
  /** Lower-case hex, as in X-Experience-API-Hash. */
  sha2: string;
  contentType: string;
  content: Buffer;
}

export type StatementRequestParts =
  | { ok: true; body: unknown; attachments: AttachmentPart[] }
  | { ok: false; issue: XapiIssue };

const HASH_BY_HEX_LENGTH: Record<number, string> = { 64: 'sha256', 96: 'sha384', 128: 'sha512' };

function fail(message: string, field = ''): { ok: false; issue: XapiIssue } {
  return { ok: false, issue: { field, message } };
}

/** Reads the parts of a multipart/mixed statements request: the statements and the raw attachments. */
export function readStatementParts(parts: MultipartPart[]): StatementRequestParts {
  const [first, ...rest] = parts;
  if (first === undefined) return fail('the multipart body has no parts; the first part must hold the statements');
  if (mediaTypeOf(first.headers['content-type']) !== 'application/json') {
    return fail(
      `the first part must hold the statements with Content-Type application/json, got ${JSON.stringify(first.headers['content-type'] ?? 'none')}`,
    );
  }
  let body: unknown;
  const text = first.body.toString('utf8');
  try {
    body = JSON.parse(text);
  } catch {
    return fail(`the first part is not valid JSON: ${describeJsonSyntaxFault(text) ?? 'it cannot be parsed'}`);
  }

  const attachments: AttachmentPart[] = [];
  for (const [index, part] of rest.entries()) {
    const where = `part ${index + 2}`;
    const encoding = part.headers['content-transfer-encoding'];
    if (encoding?.toLowerCase() !== 'binary') {
      return fail(`${where} must have the header Content-Transfer-Encoding: binary, got ${JSON.stringify(encoding ?? 'none')}`);
    }
    const hash = part.headers['x-experience-api-hash'];
    if (hash === undefined || hash === '') {
      return fail(`${where} must have an X-Experience-API-Hash header with the sha2 of its attachment`);
    }
    const sha2 = hash.toLowerCase();
    const algorithm = /^[0-9a-f]+$/.test(sha2) ? HASH_BY_HEX_LENGTH[sha2.length] : undefined;
    if (algorithm === undefined) {
      return fail(`${where}: X-Experience-API-Hash must be a SHA-2 digest in hexadecimal (64, 96 or 128 digits), got ${JSON.stringify(hash.slice(0, 140))}`);
    }
    if (createHash(algorithm).update(part.body).digest('hex') !== sha2) {
      return fail(`${where}: its content does not hash to its X-Experience-API-Hash ${sha2}`);
    }
    attachments.push({ sha2, contentType: part.headers['content-type'] ?? 'application/octet-stream', content: part.body });
  }
  return { ok: true, body, attachments };
}

/** The Attachment objects of a statement and of its SubStatement, with their field paths. */
export function attachmentsOf(statement: Statement): Array<{ attachment: Attachment; field: string }> {
  const found = (statement.attachments ?? []).map((attachment, i) => ({ attachment, field: `attachments[${i}]` }));
  const object = statement.object;
  if (object.objectType === 'SubStatement') {
    (object.attachments ?? []).forEach((attachment, i) => found.push({ attachment, field: `object.attachments[${i}]` }));
  }
  return found;
}

/**
 * Checks that the raw parts and the Attachment objects of validated statements agree. `batch`
 * says whether the body was an array (issues then carry the statement's index).
 */
export function checkAttachmentParts(statements: Statement[], parts: AttachmentPart[], batch: boolean): XapiIssue | null {
  const sent = new Set(parts.map((part) => part.sha2));
  const declared = new Set<string>();
  for (const [index, statement] of statements.entries()) {
    for (const { attachment, field } of attachmentsOf(statement)) {
      const sha2 = attachment.sha2.toLowerCase();
      declared.add(sha2);
      // A SubStatement's attachments describe the statement it quotes: their data may come along.
      if (attachment.fileUrl === undefined && !field.startsWith('object.') && !sent.has(sha2)) {
        return {
          field: `${field}.sha2`,
          message:
            parts.length === 0
              ? `${field} has no fileUrl, so its data must be sent: use Content-Type multipart/mixed with a part whose X-Experience-API-Hash is ${sha2}`
              : `${field} has no fileUrl and no part has X-Experience-API-Hash ${sha2}`,
          statementIndex: batch ? index : undefined,
        };
      }
    }
  }
  for (const [index, part] of parts.entries()) {
    if (!declared.has(part.sha2)) {
      return {
        field: '',
        message: `part ${index + 2} (X-Experience-API-Hash ${part.sha2}) is not the data of any attachment of the statements`,
      };
    }
  }
  return null;
}

/** The parts a statement's own Attachments (and its SubStatement's) name, each once. */
export function partsOfStatement(statement: Statement, parts: AttachmentPart[]): AttachmentPart[] {
  const wanted = new Set(attachmentsOf(statement).map(({ attachment }) => attachment.sha2.toLowerCase()));
  const seen = new Set<string>();
  return parts.filter((part) => wanted.has(part.sha2) && !seen.has(part.sha2) && seen.add(part.sha2));
}
