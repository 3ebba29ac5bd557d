/**
 * Signed statements (xAPI 1.0.3 Part Two §2.6; 2.0.0 Part Two §2.6): a statement is signed when
 * one of its Attachments has usageType http://adlnet.gov/expapi/attachments/signature. The LRS
 * MUST reject a malformed signature with 400. Checked here:
 *
 * - the Attachment's contentType is application/octet-stream, and its data came in the request
 *   (a signature cannot be checked from a fileUrl);
 * - the data is a JWS in compact serialization (RFC 7515 §7.1): three base64url segments, a JSON
 *   object header whose alg is RS256, RS384 or RS512 (§2.6.s4.b4);
 * - the payload is "a valid JSON serialization of the complete Statement before the signature was
 *   added" (§2.6.s4.b3): a JSON object that is the same statement by the Statement Comparison
 *   Requirements (statement-signature.ts, which leaves the signature attachment itself out);
 * - when the header carries an x5c certificate chain (§2.6, LRS requirements: "If the JWS header
 *   includes an X.509 certificate, validate the signature against that certificate as defined in
 *   JWS"), the signature verifies with the first certificate's key and each certificate is signed
 *   by the next one. Without x5c there is no key to check the signature with: the spec leaves
 *   trust to the consumer, and so does the LRS. No certificate is trusted or refused for its
 *   issuer or dates: the LRS has no trust anchors.
 */
import { X509Certificate, verify } from 'node:crypto';
import type { XapiIssue } from './issue';
import { mediaTypeOf } from './multipart';
import { SIGNATURE_USAGE_TYPE } from './statement-attachments';
import type { AttachmentPart } from './statement-attachments';
import type { Statement } from './statement-schema';
import { statementSignature } from './statement-signature';

const HASH_BY_ALG: Record<string, string> = { RS256: 'sha256', RS384: 'sha384', RS512: 'sha512' };
const BASE64URL = /^[A-Za-z0-9_-]*$/;

type JwsCheck = { ok: true } | { ok: false; message: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeJson(segment: string): unknown {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/**
 * Checks every signature attachment of a validated statement (as received, before the LRS set
 * any property) against the raw parts of the request. Null when there is none or all are sound.
 */
export function checkStatementSignatures(
  statement: Statement,
  parts: AttachmentPart[],
): Omit<XapiIssue, 'statementIndex'> | null {
  for (const [index, attachment] of (statement.attachments ?? []).entries()) {
    if (attachment.usageType !== SIGNATURE_USAGE_TYPE) continue;
    const field = `attachments[${index}]`;
    if (mediaTypeOf(attachment.contentType) !== 'application/octet-stream') {
      return {
        field: `${field}.contentType`,
        message: `${field}.contentType must be "application/octet-stream" for a signature (usageType ${SIGNATURE_USAGE_TYPE}), got ${JSON.stringify(attachment.contentType)}`,
      };
    }
    const part = parts.find((candidate) => candidate.sha2 === attachment.sha2.toLowerCase());
    if (part === undefined) {
      return {
        field: `${field}.sha2`,
        message: `${field} is a signature: its JWS must be sent as a part of a multipart/mixed request, with X-Experience-API-Hash ${attachment.sha2}`,
      };
    }
    const check = checkJws(part.content.toString('utf8').trim(), statement);
    if (!check.ok) return { field, message: `${field} is not a valid signature of this statement: ${check.message}` };
  }
  return null;
}

/** One JWS in compact serialization against the statement it signs. */
export function checkJws(jws: string, statement: Statement | Record<string, unknown>): JwsCheck {
  const segments = jws.split('.');
  if (segments.length !== 3 || !segments.every((segment) => BASE64URL.test(segment)) || segments[0] === '' || segments[2] === '') {
    return { ok: false, message: 'it is not a JWS in compact serialization (three base64url parts separated by ".")' };
  }
  const [encodedHeader, encodedPayload, encodedSignature] = segments as [string, string, string];

  let header: unknown;
  try {
    header = decodeJson(encodedHeader);
  } catch {
    return { ok: false, message: 'its header is not JSON' };
  }
  if (!isObject(header)) return { ok: false, message: 'its header is not a JSON object' };
  const hash = typeof header.alg === 'string' ? HASH_BY_ALG[header.alg] : undefined;
  if (hash === undefined) {
    return { ok: false, message: `its algorithm must be RS256, RS384 or RS512, got ${JSON.stringify(header.alg ?? null)}` };
  }

  let payload: unknown;
  try {
    payload = decodeJson(encodedPayload);
  } catch {
    return { ok: false, message: 'its payload is not a valid JSON serialization of a statement' };
  }
  if (!isObject(payload)) return { ok: false, message: 'its payload is not a statement (a JSON object)' };
  const statementId = (statement as { id?: unknown }).id;
  const payloadIdDiffers =
    typeof payload.id === 'string' && typeof statementId === 'string' && payload.id.toLowerCase() !== statementId.toLowerCase();
  let same = false;
  try {
    same = !payloadIdDiffers && statementSignature(payload) === statementSignature(statement);
  } catch {
    same = false;
  }
  if (!same) return { ok: false, message: 'its payload is not the statement it is attached to' };

  if (header.x5c !== undefined) {
    const chain = checkCertificateChain(header.x5c);
    if (!chain.ok) return chain;
    const signature = Buffer.from(encodedSignature, 'base64url');
    const signingInput = Buffer.from(`${encodedHeader}.${encodedPayload}`, 'ascii');
    let valid = false;
    try {
      valid = verify(hash, signingInput, chain.leaf.publicKey, signature);
    } catch {
      valid = false;
    }
    if (!valid) return { ok: false, message: 'its signature does not verify with the certificate in its x5c header' };
  }
  return { ok: true };
}

/** RFC 7515 §4.1.6: x5c is an array of base64 (not base64url) DER certificates, each signed by the next. */
function checkCertificateChain(x5c: unknown): { ok: true; leaf: X509Certificate } | { ok: false; message: string } {
  if (!Array.isArray(x5c) || x5c.length === 0 || !x5c.every((item) => typeof item === 'string')) {
    return { ok: false, message: 'its x5c header must be a non-empty array of base64 certificates' };
  }
  let certificates: X509Certificate[];
  try {
    certificates = (x5c as string[]).map((text) => new X509Certificate(Buffer.from(text, 'base64')));
  } catch {
    return { ok: false, message: 'its x5c header holds a certificate that cannot be read' };
  }
  for (let i = 0; i + 1 < certificates.length; i += 1) {
    if (!certificates[i]!.verify(certificates[i + 1]!.publicKey)) {
      return { ok: false, message: `certificate ${i + 1} of its x5c chain is not signed by certificate ${i + 2}` };
    }
  }
  return { ok: true, leaf: certificates[0]! };
}
