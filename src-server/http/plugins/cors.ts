/**
 * CORS for the xAPI resources (docs/design.md, "CORS for browser content"): e-learning content
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
 * See registerCors for where it sits and why.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const ALLOW_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';
const ALLOW_HEADERS = ['Authorization', 'Content-Type', 'X-Experience-API-Version', 'If-Match', 'If-None-Match'];
const EXPOSE_HEADERS = 'ETag, Last-Modified, X-Experience-API-Consistent-Through, X-Experience-API-Version';
/**
 * The admin API and console keep their own guard (admin-guard.ts) and grant no other origin
 * (`admin` is a reserved Store slug, so no xAPI path starts so).
 * Every other path gets the headers: a course whose endpoint lacks the `xAPI` segment must read
 * the 404 that says so, not "Failed to fetch".
 */
const ADMIN_PATH = /^\/admin(?=\/|\?|$)/;
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

/**
 * Registered on the root instance, first: its hooks then run for every request outside /admin,
 * whatever answers it — a route, a refusal from any later hook (version, credentials, limits),
 * the not-found handler (an unknown resource or Store) or the error handler — so a browser always
 * shows the content the real status and message instead of "Failed to fetch". A preflight is
 * answered here on every such path, known or not.
 */
export const corsPlugin = fp(corsHooks, { name: 'lore-cors', fastify: '5.x' });

async function corsHooks(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request, reply) => {
    if (ADMIN_PATH.test(request.url)) return undefined;
    setCorsHeaders(request, reply);
    if (request.method !== 'OPTIONS') return undefined;
    reply.header('Access-Control-Allow-Methods', ALLOW_METHODS);
    reply.header('Access-Control-Allow-Headers', allowedHeaders(request.headers['access-control-request-headers']));
    reply.header('Access-Control-Max-Age', MAX_AGE_SECONDS);
    await reply.code(204).send();
    return reply;
  });
}
