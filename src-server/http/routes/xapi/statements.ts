/**
 * /statements: POST, PUT, GET and HEAD (xAPI Part Three §2.1). Thin over lrs/statement-*.ts.
 *
 * Bodies are application/json or multipart/mixed (statements with attachments, Part Three §1.5);
 * any other Content-Type is refused with 400, as ADL's suites expect (XAPI-00127), not 415.
 * GET answers application/json, or multipart/mixed with the raw attachments when attachments=true.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasScope, statementReadReach } from '../../../auth/api-key-check';
import type { OperationFailure } from '../../../lrs/failure';
import { readMore, readStatements, type ReadOptions, type StatementReadResult } from '../../../lrs/statement-reads';
import { recordStatements } from '../../../lrs/statement-writes';
import type { StatementWriteContext } from '../../../lrs/statement-writes';
import type { StoredClock } from '../../../lrs/stored-clock';
import { buildMultipart, chooseBoundary, mediaTypeOf, parseMultipart } from '../../../xapi/multipart';
import { readStatementParts } from '../../../xapi/statement-attachments';
import type { AttachmentPart } from '../../../xapi/statement-attachments';
import { parseStatementQuery } from '../../../xapi/statement-query';
import { LrsError, errors } from '../../errors';
import { singleQueryParams } from '../../query-params';
import type { PublicUrlOf } from '../../request-origin';
import { publicPathPrefix } from '../../xapi-path';
import type { Storage } from '../../../storage/storage';

export interface StatementRouteDeps {
  storage: Storage;
  clock: StoredClock;
  /** The base of the URLs in an answer (`more`: its path). */
  publicUrl: PublicUrlOf;
  /** The base statement authorities name (request-origin.ts says why not the request's). */
  identityUrl: () => string;
  /** Who hears what was recorded: the console's live events, the Test Bench's LMS. */
  events: StatementWriteContext['events'];
}

function failureToError(failure: OperationFailure): LrsError {
  return new LrsError(failure.status, failure.code, failure.message, {
    field: failure.field,
    statementIndex: failure.statementIndex,
  });
}

function requireScope(request: FastifyRequest, needed: 'statements/write' | 'statements/read'): void {
  if (!hasScope(request.lrsKey, needed)) throw errors.missingScope(needed);
}

function acceptLanguages(request: FastifyRequest): string[] {
  const header = request.headers['accept-language'];
  if (!header) return [];
  return header
    .split(',')
    .map((part) => part.split(';')[0]!.trim())
    .filter((tag) => tag !== '' && tag !== '*');
}

const CONSISTENT_THROUGH = 'X-Experience-API-Consistent-Through';

/** The statements and raw attachments of a POST or PUT, by its Content-Type. */
function readStatementBody(request: FastifyRequest): { body: unknown; attachments: AttachmentPart[] } {
  const contentType = request.headers['content-type'] ?? '';
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === 'application/json') return { body: request.body, attachments: [] };
  if (mediaType === 'multipart/mixed') {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const multipart = parseMultipart(raw, contentType);
    if (!multipart.ok) throw errors.invalidBody(`The multipart/mixed body cannot be read: ${multipart.message}.`);
    const parts = readStatementParts(multipart.parts);
    if (!parts.ok) throw errors.badRequest('invalid_attachment', `The multipart/mixed body is not a statements request: ${parts.issue.message}.`);
    return { body: parts.body, attachments: parts.attachments };
  }
  throw errors.badRequest(
    'unsupported_media_type',
    `Statements are sent as Content-Type application/json, or multipart/mixed with attachments; got ${JSON.stringify(contentType || 'none')}.`,
    'Content-Type',
  );
}

export default async function statementRoutes(app: FastifyInstance, deps: StatementRouteDeps): Promise<void> {
  // Part Three §2.1.3.s2.b5 (XAPI-00153): every GET answer carries the header, errors included.
  app.addHook('onSend', async (request, reply, payload) => {
    if ((request.method === 'GET' || request.method === 'HEAD') && !reply.hasHeader(CONSISTENT_THROUGH)) {
      // Every statement acknowledged before now is visible (writes are synchronous in memory).
      reply.header(CONSISTENT_THROUGH, new Date().toISOString());
    }
    return payload;
  });
  // JSON keeps Fastify's parser; multipart/mixed and anything else arrive as bytes, for
  // readStatementBody to split or refuse. Scoped to this plugin: other resources are unaffected.
  app.addContentTypeParser('multipart/mixed', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const context = (request: FastifyRequest) => ({
    storage: deps.storage,
    store: request.lrsStore,
    key: request.lrsKey,
    version: request.xapiVersion,
    clock: deps.clock,
    publicUrl: deps.identityUrl(),
    events: deps.events,
  });

  app.post('/statements', async (request, reply) => {
    requireScope(request, 'statements/write');
    const { body, attachments } = readStatementBody(request);
    const outcome = await recordStatements(context(request), body, { attachments });
    if (!outcome.ok) {
      request.lrsRejectionLogged = true; // kept in the rejected log: not a refusal to log again
      throw failureToError(outcome.failure);
    }
    return reply.code(200).send(outcome.value);
  });

  app.put('/statements', async (request, reply) => {
    requireScope(request, 'statements/write');
    const { statementId } = singleQueryParams(request);
    if (statementId === undefined) {
      throw errors.invalidParameter('PUT /statements needs the statementId parameter.', 'statementId');
    }
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(statementId)) {
      throw errors.invalidParameter(`statementId must be a UUID, got "${statementId.slice(0, 100)}".`, 'statementId');
    }
    const { body, attachments } = readStatementBody(request);
    const outcome = await recordStatements(context(request), body, { statementId: statementId.toLowerCase(), attachments });
    if (!outcome.ok) {
      request.lrsRejectionLogged = true; // kept in the rejected log: not a refusal to log again
      throw failureToError(outcome.failure);
    }
    return reply.code(204).send();
  });

  // The public URL's path, parsed once per URL (it is the same for nearly every request).
  let prefixOf = { url: '', prefix: publicPathPrefix('') };
  const pathPrefix = (url: string) => {
    if (prefixOf.url !== url) prefixOf = { url, prefix: publicPathPrefix(url) };
    return prefixOf.prefix;
  };
  app.get('/statements', async (request, reply) => {
    // statements/read, all/read or all read the whole Store; statements/read/mine only the key's own.
    const reach = statementReadReach(request.lrsKey);
    if (reach === null) throw errors.missingScope('statements/read');
    const params = singleQueryParams(request);
    // Consistent-Through is decided before the read from this floor: every statement stored up to it is visible to the read.
    const options: ReadOptions = {
      acceptLanguages: acceptLanguages(request),
      morePath: pathPrefix(deps.publicUrl(request)) + request.url.split('?')[0]!,
      floorMs: deps.clock.floorMs(),
    };
    if (reach === 'mine') options.onlyKeyId = request.lrsKey.id;
    let outcome;
    if (params.more !== undefined) {
      outcome = await readMore(deps.storage, request.lrsStore, params.more, options);
    } else {
      const parsed = parseStatementQuery(params, request.xapiVersion);
      if (!parsed.ok) throw errors.invalidParameter(parsed.issue.message, parsed.issue.field);
      outcome = await readStatements(deps.storage, request.lrsStore, parsed.query, options);
    }
    if (!outcome.ok) throw failureToError(outcome.failure);
    return sendRead(reply, outcome.value);
  });
}

function sendRead(reply: FastifyReply, result: StatementReadResult) {
  reply.header(CONSISTENT_THROUGH, result.consistentThrough);
  const lastModified = result.kind === 'single' ? result.stored : result.lastStored;
  if (lastModified) reply.header('Last-Modified', new Date(lastModified).toUTCString());
  if (result.attachments === undefined) return reply.code(200).type('application/json; charset=utf-8').send(result.body);
  // attachments=true (Part Three §2.1.3): the statements first, then each attachment's raw data.
  const parts = [
    { headers: { 'Content-Type': 'application/json' }, body: result.body },
    ...result.attachments.map((attachment) => ({
      headers: {
        'Content-Type': attachment.contentType,
        'Content-Transfer-Encoding': 'binary',
        'X-Experience-API-Hash': attachment.sha2,
      },
      body: attachment.content,
    })),
  ];
  const boundary = chooseBoundary(parts);
  return reply.code(200).type(`multipart/mixed; boundary=${boundary}`).send(buildMultipart(boundary, parts));
}
