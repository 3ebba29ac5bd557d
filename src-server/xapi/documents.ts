/**
 * The rules of the document resources (State, Activity Profile, Agent Profile), pure:
 *
 * - ETag: the SHA-1 of the content, hex, lower case, in quotes (1.0.3 Part Three §3.1.s4.b2/b4;
 *   2.0.0 §4.1.4 names no algorithm, so the same one serves both).
 * - Preconditions: If-Match and If-None-Match as RFC 7232 §3.1/§3.2 describe, on PUT, POST and
 *   DELETE of all three resources; a failed one is 412 (1.0.3 §3.1.s4.b5–b12; 2.0.0 §4.1.4).
 * - A PUT with neither header (1.0.3 §3.1.s3/s4.b13; 2.0.0 §4.1.4):
 *     existing Agent/Activity Profile document → 409, both versions;
 *     existing State document → 409 under 2.0.0, which lists State among the resources with
 *       concurrency control; 1.0.3 lets State be written without the headers (§3.1.s3);
 *     no document yet, Agent/Activity Profile, 1.0.3 → 400: "A Client making a PUT request to
 *       either the Agent Profile Resource or Activity Profile Resource MUST include the If-Match
 *       header or the If-None-Match header" (§3.1.s3.b1). 2.0.0 dropped that client rule, so the
 *       PUT is accepted there.
 * - Content: stored byte for byte with its Content-Type. A body sent as application/json must be
 *   JSON (1.0.3 §3.2.s3.b6: the content type must match the content). POST onto an existing
 *   document merges JSON objects one level deep; any other pair is 400 and changes nothing
 *   (1.0.3 §2.2.s7–s8; 2.0.0 §4.1.6.2 POST).
 */
import { createHash } from 'node:crypto';
import type { DocumentResource } from './document-params';
import { describeJsonSyntaxFault } from './json-syntax-error';
import type { XapiVersion } from './version';

const JSON_MEDIA_TYPE = 'application/json';
/** What a document sent without a Content-Type is stored and served as. */
const DEFAULT_DOCUMENT_TYPE = 'application/octet-stream';

/** SHA-1 of the content, lower-case hex (1.0.3 §3.1.s4.b2). */
export function documentEtag(content: Uint8Array): string {
  return createHash('sha1').update(content).digest('hex');
}

/** RFC 7232 §2.3: an entity-tag is a quoted string. */
export function quoteEtag(etag: string): string {
  return `"${etag}"`;
}

/** An If-Match / If-None-Match header: `*`, or the opaque tags it lists (quotes and W/ removed). */
export type EntityTagCondition = { any: true } | { any: false; tags: string[] };

export interface Preconditions {
  ifMatch?: EntityTagCondition;
  ifNoneMatch?: EntityTagCondition;
}

/**
 * Reads an If-Match / If-None-Match header. Lenient where clients are sloppy: a tag without
 * quotes is read as its text, and a weak tag (W/"…") as its opaque part, since this service only
 * hands out strong tags and a client that echoes one back with W/ means that one.
 */
export function parseEntityTagHeader(value: string | undefined): EntityTagCondition | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (trimmed === '*') return { any: true };
  const tags: string[] = [];
  for (const match of trimmed.matchAll(/\s*(?:W\/)?("([^"]*)"|[^,\s]+)\s*(?:,|$)/gu)) {
    tags.push(match[2] ?? match[1]!);
  }
  return { any: false, tags };
}

export function parsePreconditions(headers: { ifMatch?: string; ifNoneMatch?: string }): Preconditions {
  const preconditions: Preconditions = {};
  const ifMatch = parseEntityTagHeader(headers.ifMatch);
  const ifNoneMatch = parseEntityTagHeader(headers.ifNoneMatch);
  if (ifMatch) preconditions.ifMatch = ifMatch;
  if (ifNoneMatch) preconditions.ifNoneMatch = ifNoneMatch;
  return preconditions;
}

/** RFC 7232 §3.1 and §3.2, for a document whose current etag is `current` (null: none exists). */
export function preconditionsHold(preconditions: Preconditions, current: string | null): boolean {
  const { ifMatch, ifNoneMatch } = preconditions;
  if (ifMatch && (current === null || (!ifMatch.any && !ifMatch.tags.includes(current)))) return false;
  if (ifNoneMatch && current !== null && (ifNoneMatch.any || ifNoneMatch.tags.includes(current))) return false;
  return true;
}

export type DocumentRuleFailure = {
  status: 400 | 409 | 412;
  code: 'precondition_failed' | 'document_conflict' | 'precondition_required' | 'invalid_document';
  message: string;
  field?: string;
};

export type WriteDecision = { ok: true } | { ok: false; failure: DocumentRuleFailure };

/** Whether a PUT, POST or DELETE may go ahead, given the document's current etag (see the header comment). */
export function decideWrite(input: {
  resource: DocumentResource;
  method: 'PUT' | 'POST' | 'DELETE';
  version: XapiVersion;
  preconditions: Preconditions;
  current: string | null;
}): WriteDecision {
  const { resource, method, version, preconditions, current } = input;
  const hasHeaders = preconditions.ifMatch !== undefined || preconditions.ifNoneMatch !== undefined;
  if (hasHeaders) {
    if (preconditionsHold(preconditions, current)) return { ok: true };
    const message =
      current === null
        ? 'The precondition failed: If-Match names a document, but none exists here. Nothing was changed.'
        : preconditions.ifMatch && !preconditionsHold({ ifMatch: preconditions.ifMatch }, current)
          ? `The precondition failed: the document has changed (its ETag is now ${quoteEtag(current)}). Fetch it again before changing it. Nothing was changed.`
          : 'The precondition failed: If-None-Match says no such document may exist, but one does. Nothing was changed.';
    return { ok: false, failure: { status: 412, code: 'precondition_failed', message } };
  }
  if (method !== 'PUT') return { ok: true };
  const concurrencyControlled = resource !== 'state' || version === '2.0.0';
  if (current !== null && concurrencyControlled) {
    return {
      ok: false,
      failure: {
        status: 409,
        code: 'document_conflict',
        message:
          'A document already exists here and the PUT has neither If-Match nor If-None-Match. Check the current ' +
          'document (GET it), then send its ETag in If-Match to replace it. Nothing was changed.',
      },
    };
  }
  if (current === null && resource !== 'state' && version === '1.0.3') {
    return {
      ok: false,
      failure: {
        status: 400,
        code: 'precondition_required',
        field: 'If-None-Match',
        message:
          'A PUT to a profile resource must carry If-Match or If-None-Match (xAPI 1.0.3 Communication §3.1): ' +
          'send "If-None-Match: *" to create a document, or "If-Match: <ETag>" to replace one.',
      },
    };
  }
  return { ok: true };
}

/** The media type of a Content-Type value, lower case, without parameters. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJsonContentType(contentType: string | undefined): boolean {
  return mediaType(contentType) === JSON_MEDIA_TYPE;
}

type JsonDocument = { ok: true; value: unknown } | { ok: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function parseJsonDocument(content: Uint8Array): JsonDocument {
  let text: string;
  try {
    text = utf8.decode(content);
  } catch {
    return { ok: false, reason: 'it is not UTF-8 text' };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: describeJsonSyntaxFault(text) ?? 'it is not JSON' };
  }
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * 1.0.3 §2.2.s7: "for each property directly defined on the Object being posted, set the
 * corresponding property on the existing Object equal to the value from the posted Object" —
 * one level deep; a nested object is replaced whole. Spread defines own properties, so a posted
 * "__proto__" key stays a plain key.
 */
export function mergeDocuments(existing: Record<string, unknown>, posted: Record<string, unknown>): Record<string, unknown> {
  return { ...existing, ...posted };
}

export type NewContent =
  | { ok: true; content: Uint8Array; contentType: string }
  | { ok: false; failure: DocumentRuleFailure };

function invalid(message: string, field = 'body'): NewContent {
  return { ok: false, failure: { status: 400, code: 'invalid_document', message, field } };
}

/**
 * What a PUT or POST stores, given what was sent and (for POST) the current document. PUT, and
 * POST where nothing exists yet, store the body as sent; POST onto a document merges.
 */
export function contentForWrite(input: {
  method: 'PUT' | 'POST';
  body: Uint8Array;
  contentType: string | undefined;
  existing: { content: Uint8Array; contentType: string } | null;
}): NewContent {
  const contentType = input.contentType?.trim() ? input.contentType.trim() : DEFAULT_DOCUMENT_TYPE;
  let posted: unknown;
  if (isJsonContentType(contentType)) {
    const parsed = parseJsonDocument(input.body);
    if (!parsed.ok) return invalid(`The body is sent as application/json but is not valid JSON (${parsed.reason}). Nothing was changed.`);
    posted = parsed.value;
  }
  if (input.method === 'PUT' || input.existing === null) return { ok: true, content: input.body, contentType };

  // POST onto an existing document: 1.0.3 §2.2.s8 / 2.0.0 §4.1.6.2.
  if (!isJsonContentType(contentType)) {
    return invalid(
      `A POST merges JSON objects, but the body is sent as ${mediaType(contentType) || 'an unknown type'}, not application/json. ` +
        'Use PUT to replace the document. Nothing was changed.',
      'Content-Type',
    );
  }
  if (!isJsonObject(posted)) return invalid('A POST merges JSON objects, but the body is not a JSON object. Nothing was changed.');
  if (!isJsonContentType(input.existing.contentType)) {
    return invalid(
      `A POST merges JSON objects, but the stored document is ${mediaType(input.existing.contentType) || 'of an unknown type'}, ` +
        'not application/json. Use PUT to replace it. Nothing was changed.',
    );
  }
  const stored = parseJsonDocument(input.existing.content);
  if (!stored.ok || !isJsonObject(stored.value)) {
    return invalid('A POST merges JSON objects, but the stored document is not a JSON object. Use PUT to replace it. Nothing was changed.');
  }
  const merged = mergeDocuments(stored.value, posted);
  return { ok: true, content: new TextEncoder().encode(JSON.stringify(merged)), contentType: JSON_MEDIA_TYPE };
}
