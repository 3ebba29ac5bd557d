/**
 * The alternate request syntax (xAPI 1.0.3 Part Three §1.3), for browser content that cannot send
 * custom headers or methods across origins: a POST whose only query parameter is `method`, with
 * a form-encoded body holding the headers (Authorization, X-Experience-API-Version, Content-Type,
 * Content-Length, If-Match, If-None-Match), the body (`content`) and the resource's parameters.
 *
 * It is generic: `routeAlternateSyntax` (called from the server's rewriteUrl) sends any xAPI
 * request that has a `method` parameter to one handler here, which rebuilds the intended request
 * and dispatches it through the app (`inject`), so every resource, whoever writes it, gets the
 * syntax with its own checks (version, credentials, scopes) unchanged.
 *
 * Refused with 400: a `method` parameter on anything but POST, other query parameters ("the LRS
 * MUST NOT accept any other query string parameters", §1.3.s3.b4), a body that is not
 * application/x-www-form-urlencoded, a repeated form field, an unknown method. xAPI 2.0.0 removed
 * the syntax (ADL's 2.0 suite expects a 4xx): a request whose version is 2.0 is refused too.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest, RawRequestDefaultExpression } from 'fastify';
import { mediaTypeOf } from '../../xapi/multipart';
import { parseVersionHeader } from '../../xapi/version';
import { LrsError, errors } from '../errors';
import { setCorsHeaders } from './cors';
import { isXapiPath } from '../xapi-path';

/** Internal path prefix of rewritten requests; "~" is not allowed in a Store slug. */
export const ALTERNATE_PREFIX = '/~alternate';

const REWRITTEN = Symbol('lore.alternateRequestSyntax');
type MarkedRequest = RawRequestDefaultExpression & { [REWRITTEN]?: true };

const METHODS = new Set(['GET', 'HEAD', 'PUT', 'POST', 'DELETE']);
/** §1.3.s3.b7: the form parameters taken as headers. Content-Length is recomputed. */
const HEADER_FIELDS = new Set(['authorization', 'x-experience-api-version', 'content-type', 'content-length', 'if-match', 'if-none-match']);
/** Headers of the outer request not carried over to the rebuilt one. */
const OUTER_ONLY = new Set(['content-type', 'content-length', 'transfer-encoding', 'connection', 'expect']);
/** Headers of the inner answer the outer answer does not copy (Fastify sets its own). */
const INNER_ONLY = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * For the server's rewriteUrl, after the xapi segment is normalised: an xAPI request with a
 * `method` query parameter goes to the alternate-syntax handler. Only requests rewritten here
 * reach it; the prefix typed by a client answers 404.
 */
export function routeAlternateSyntax(raw: RawRequestDefaultExpression, url: string): string {
  const query = url.indexOf('?');
  // A preflight keeps its own path: the CORS plugin answers it (browsers send the syntax's
  // requests as simple requests, without one).
  if (query < 0 || raw.method === 'OPTIONS' || !isXapiPath(url)) return url;
  if (!new URLSearchParams(url.slice(query + 1)).has('method')) return url;
  (raw as MarkedRequest)[REWRITTEN] = true;
  return `${ALTERNATE_PREFIX}${url}`;
}

function refuse(message: string, field?: string): LrsError {
  return errors.badRequest('invalid_alternate_request', message, field);
}

interface InnerRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** Rebuilds the intended request from the outer one (§1.3). */
function rebuildRequest(request: FastifyRequest): InnerRequest {
  if (request.method !== 'POST') {
    throw refuse(`The alternate request syntax (a "method" parameter) is only for POST requests, not ${request.method}.`, 'method');
  }
  const url = request.url.slice(ALTERNATE_PREFIX.length);
  const queryAt = url.indexOf('?');
  const path = url.slice(0, queryAt);
  const query = new URLSearchParams(url.slice(queryAt + 1));
  const extra = [...query.keys()].find((name) => name !== 'method');
  if (extra !== undefined) {
    throw refuse(`With the alternate request syntax, "method" is the only query parameter; send "${extra}" as a form field.`, extra);
  }
  const methods = query.getAll('method');
  const method = methods[0]!.toUpperCase();
  if (methods.length > 1 || !METHODS.has(method)) {
    throw refuse(`method must be one of ${[...METHODS].join(', ')}, got ${JSON.stringify(methods.join(','))}.`, 'method');
  }

  const contentType = request.headers['content-type'];
  if (mediaTypeOf(contentType) !== 'application/x-www-form-urlencoded') {
    throw refuse(
      `A request in the alternate syntax has a form body: Content-Type application/x-www-form-urlencoded, got ${JSON.stringify(contentType ?? 'none')}.`,
      'Content-Type',
    );
  }
  const body = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  const form = new URLSearchParams(body);

  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!OUTER_ONLY.has(name) && typeof value === 'string') headers[name] = value;
  }
  const inner = new URLSearchParams();
  const seen = new Set<string>();
  let payload: string | undefined;
  for (const [name, value] of form) {
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw refuse(`The form field "${name}" is given more than once.`, name);
    seen.add(lower);
    if (lower === 'content-length') continue;
    if (HEADER_FIELDS.has(lower)) headers[lower] = value;
    else if (name === 'content') payload = value;
    else inner.append(name, value);
  }
  if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';

  const version = headers['x-experience-api-version'];
  if (version !== undefined && parseVersionHeader(version) === '2.0.0') {
    throw refuse('xAPI 2.0.0 removed the alternate request syntax: send the request with its own method and headers.', 'method');
  }
  const innerQuery = inner.toString();
  return {
    method: method as InnerRequest['method'],
    url: innerQuery === '' ? path : `${path}?${innerQuery}`,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  };
}

/** Its answers are refusals like any other: after the error handling they go through. */
export const alternateRequestSyntaxPlugin = fp(alternateRequestSyntax, {
  name: 'lore-alternate-request-syntax',
  fastify: '5.x',
  dependencies: ['lore-error-handling'],
});

async function alternateRequestSyntax(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    // Any body arrives as bytes: the handler reads the form itself and refuses anything else.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    scope.all(`${ALTERNATE_PREFIX}/*`, async (request, reply) => {
      if (!(request.raw as MarkedRequest)[REWRITTEN]) {
        throw new LrsError(404, 'not_found', `Nothing is served at ${request.method} ${request.url.split('?')[0]}.`);
      }
      // The syntax belongs to 1.0.x: its own refusals answer as 1.0.3, readable cross-origin.
      reply.header('X-Experience-API-Version', '1.0.3');
      setCorsHeaders(request, reply);
      const inner = rebuildRequest(request);
      // From the client's own address: limits and auth backoff count per address.
      const response = await app.inject({ ...inner, remoteAddress: request.ip });
      reply.code(response.statusCode);
      for (const [name, value] of Object.entries(response.headers)) {
        if (!INNER_ONLY.has(name) && value !== undefined) reply.header(name, value);
      }
      return reply.send(response.rawPayload);
    });
  });
}
