/**
 * CORS for the xAPI resources (DESIGN.md: "CORS for browser-launched content"): e-learning content
 * runs in a browser page served from anywhere (an LMS, a CDN, a file on disk) and calls the LRS
 * with fetch or XHR, so every origin may call it, preflight included.
 *
 * - Access-Control-Allow-Origin echoes the request's Origin (with Vary: Origin), or "*" without one.
 * - No Access-Control-Allow-Credentials: the xAPI port authenticates by the Authorization header
 *   the content sets itself, never by cookies. Allowing credentials to any origin would let any
 *   page reuse Basic credentials a browser has cached for this host (a 401 here carries
 *   WWW-Authenticate: Basic, so a browser may have prompted for and kept them).
 * - A preflight (OPTIONS) is answered at once with 204, before the version header, credentials
 *   and Store checks: browsers send none of those on a preflight.
 * - Exposed headers: what xAPI clients read (ETag for concurrency, Last-Modified,
 *   X-Experience-API-Consistent-Through, X-Experience-API-Version).
 *
 * Register it in the xAPI scope before the hooks that check requests (xapi-context.ts), so that
 * refusals (400, 401, 403, 404) carry the headers too and the browser shows them to the content.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'X-Experience-API-Version', 'If-Match', 'If-None-Match'];
const EXPOSE_HEADERS = 'ETag, Last-Modified, X-Experience-API-Consistent-Through, X-Experience-API-Version';
/** How long a browser may reuse a preflight answer. */
const MAX_AGE_SECONDS = '86400';

/** The allowed request headers: ours, and any others the preflight asks for (none is a credential). */
export function allowedHeaders(requested: string | undefined): string {
  const names = new Map(ALLOW_HEADERS.map((name) => [name.toLowerCase(), name]));
  for (const name of (requested ?? '').split(',')) {
    const trimmed = name.trim();
    if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(trimmed) && !names.has(trimmed.toLowerCase())) names.set(trimmed.toLowerCase(), trimmed);
  }
  return [...names.values()].join(', ');
}

/** The headers of an actual (not preflight) cross-origin answer. */
export function setCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Vary', 'Origin');
  } else {
    reply.header('Access-Control-Allow-Origin', '*');
  }
  reply.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
}

export function registerCors(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (request, reply) => {
    setCorsHeaders(request, reply);
    if (request.method === 'OPTIONS') {
      reply.header('Access-Control-Allow-Methods', ALLOW_METHODS);
      reply.header('Access-Control-Allow-Headers', allowedHeaders(request.headers['access-control-request-headers']));
      reply.header('Access-Control-Max-Age', MAX_AGE_SECONDS);
      await reply.code(204).send();
      return reply;
    }
    return undefined;
  });
  // Gives OPTIONS a route under the prefix; the hook above answers it before any other hook runs.
  scope.options('/*', async (_request, reply) => reply.code(204).send());
}
