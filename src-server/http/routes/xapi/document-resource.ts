/**
 * The HTTP side shared by the three document resources (state.ts, activity-profile.ts,
 * agent-profile.ts): parameters, preconditions and bodies in, ETag / Last-Modified / content out.
 * Thin over lrs/documents.ts; the rules live in xapi/documents.ts and xapi/document-params.ts.
 *
 * A document may be of any type (xAPI 1.0.3 Part Three §2.2: "arbitrary binary data"), so these
 * routes take every body as raw bytes: the plugin that calls registerDocumentResource replaces the
 * content-type parsers of its own encapsulated scope (the statement routes keep their JSON parser).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasScope } from '../../../auth/api-key-check';
import {
  deleteDocument,
  deleteDocuments,
  listDocumentIds,
  readDocument,
  writeDocument,
  type DocumentContext,
  type DocumentFailure,
} from '../../../lrs/documents';
import type { StoredClock } from '../../../lrs/stored-clock';
import type { Storage } from '../../../storage/storage';
import { parseDocumentParams, type DocumentMethod, type DocumentResource, type DocumentTarget } from '../../../xapi/document-params';
import { parsePreconditions, quoteEtag, type Preconditions } from '../../../xapi/documents';
import { LrsError, errors } from '../../errors';
import { sendJsonWithEtag } from '../../json-etag';
import { singleQueryParams } from '../../query-params';

export interface DocumentRouteDeps {
  storage: Storage;
  clock: StoredClock;
  /** Who hears of each write to one document (the Test Bench's log of an attempt's State writes). */
  written?: DocumentContext['written'];
}

const SCOPE: Record<DocumentResource, 'state' | 'profile'> = {
  state: 'state',
  activityProfile: 'profile',
  agentProfile: 'profile',
};

function toError(failure: DocumentFailure): LrsError {
  return new LrsError(failure.status, failure.code, failure.message, { field: failure.field });
}

/** Bodies arrive as Buffers from the parser below; a re-dispatched request may carry text or JSON. */
function bodyBytes(body: unknown): Uint8Array {
  if (body === undefined || body === null) return new Uint8Array();
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body), 'utf8');
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Registers GET (and so HEAD), PUT, POST and DELETE of one document resource at `path`. */
export function registerDocumentResource(app: FastifyInstance, deps: DocumentRouteDeps, resource: DocumentResource, path: string): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const context = (request: FastifyRequest): DocumentContext => ({
    storage: deps.storage,
    store: request.lrsStore,
    version: request.xapiVersion,
    clock: deps.clock,
    keyId: request.lrsKey.id,
    ...(deps.written ? { written: deps.written } : {}),
  });

  const prepare = (request: FastifyRequest, method: DocumentMethod): { target: DocumentTarget; preconditions: Preconditions } => {
    const scope = SCOPE[resource];
    const key = request.lrsKey;
    if (!hasScope(key, scope) && !(method === 'GET' && key.scopes.includes('all/read'))) throw errors.missingScope(scope);
    const parsed = parseDocumentParams(resource, method, singleQueryParams(request), request.xapiVersion);
    if (!parsed.ok) throw errors.invalidParameter(parsed.issue.message, parsed.issue.field);
    const preconditions = parsePreconditions({ ifMatch: header(request, 'if-match'), ifNoneMatch: header(request, 'if-none-match') });
    return { target: parsed.target, preconditions };
  };

  app.get(path, async (request, reply) => {
    const { target } = prepare(request, 'GET');
    // 1.0.3 §3.1.s4.b1: every GET answer carries an ETag, the list of ids too.
    if (!target.one) return sendJsonWithEtag(reply, await listDocumentIds(context(request), target.set));
    const outcome = await readDocument(context(request), target.key);
    if (!outcome.ok) throw toError(outcome.failure);
    const document = outcome.value;
    return reply
      .code(200)
      .header('etag', quoteEtag(document.etag))
      .header('last-modified', new Date(document.updated).toUTCString())
      .type(document.contentType)
      .send(Buffer.from(document.content.buffer, document.content.byteOffset, document.content.byteLength));
  });

  const write = (method: 'PUT' | 'POST') => async (request: FastifyRequest, reply: FastifyReply) => {
    const { target, preconditions } = prepare(request, method);
    if (!target.one) throw new Error('a PUT or POST always names one document');
    const outcome = await writeDocument(context(request), target.key, {
      method,
      body: bodyBytes(request.body),
      contentType: header(request, 'content-type'),
      preconditions,
    });
    if (!outcome.ok) throw toError(outcome.failure);
    return reply
      .code(204)
      .header('etag', quoteEtag(outcome.value.etag))
      .header('last-modified', new Date(outcome.value.updated).toUTCString())
      .send();
  };
  app.put(path, write('PUT'));
  app.post(path, write('POST'));

  app.delete(path, async (request, reply) => {
    const { target, preconditions } = prepare(request, 'DELETE');
    if (target.one) {
      const outcome = await deleteDocument(context(request), target.key, preconditions);
      if (!outcome.ok) throw toError(outcome.failure);
    } else {
      // A State set: If-Match / If-None-Match name one document's version, so they do not apply.
      await deleteDocuments(context(request), target.set);
    }
    return reply.code(204).send();
  });
}
