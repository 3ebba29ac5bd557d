/**
 * The base URL of the URLs an answer carries (Store endpoints, launch URLs, error messages, the
 * OpenAPI server). With --public-url it is that, always. Without it, it is the origin the request
 * came to: a service on 0.0.0.0 reached as http://lrs-host:8411 from another machine must hand
 * out http://lrs-host:8411/… there, not the http://127.0.0.1:8411 it is bound to, which names the
 * reader's own machine.
 *
 * Why a function of the request rather than an AsyncLocalStorage the request fills: each caller
 * says which base it means. What the service records (statement authorities, the Test Bench
 * learner's account) must name the service the same way whichever name a visitor used, or one key
 * would become several agents; and the Test Bench's LMS writes statements outside any request.
 * An implicit per-request value would leak into those unnoticed.
 */
import type { FastifyRequest } from 'fastify';

/**
 * Where a request says it came to: Fastify's `protocol` and `host`. They read X-Forwarded-Proto and
 * X-Forwarded-Host only when the peer is one of the proxies of --trust-proxy (Fastify's trustProxy
 * checks the connection's address), so nobody else can choose the URLs the service answers with.
 */
export type RequestPlace = Pick<FastifyRequest, 'protocol' | 'host'>;

/** The base URL for the answer to a request. */
export type PublicUrlOf = (request: RequestPlace) => string;

/**
 * A host name (letters, digits, hyphens, underscores for container names, dots), an IPv4 address or a
 * bracketed IPv6 one, then an optional port: nothing a URL would read as a path, user or query, no
 * spaces or line breaks (a Host header is sent as is by any client that is not a browser).
 */
const HOST_HEADER = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?)(?::\d{1,5})?$/i;
const MAX_HOST_LENGTH = 255;

/** `http://lrs-host:8411` for a request that came there (lower-cased, default port dropped); null when its host or scheme is unusable. */
export function requestOrigin(request: RequestPlace): string | null {
  const protocol = String(request.protocol ?? '').toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') return null;
  const host = request.host;
  if (!host || host.length > MAX_HOST_LENGTH || !HOST_HEADER.test(host)) return null;
  try {
    const url = new URL(`${protocol}://${host}`);
    return url.port === '0' ? null : url.origin;
  } catch {
    return null; // a port above 65535, an IPv6 address that is none
  }
}

/**
 * The base URL of each answer. `ownUrl` is the service's own (--public-url, its path kept, else the
 * address it is bound to); with `followRequest` (no --public-url) the request's origin comes first,
 * and `ownUrl` stays the fallback for a request that names none a URL can carry.
 */
export function publicUrlOf(ownUrl: () => string, followRequest: boolean): PublicUrlOf {
  if (!followRequest) return () => ownUrl();
  // Every request asks, and clients come by a few names: each name's origin is parsed once.
  // Bounded, since the Host header is whatever a client sends.
  const origins = new Map<string, string | null>();
  return (request) => {
    const place = `${String(request.protocol)} ${request.host}`;
    let origin = origins.get(place);
    if (origin === undefined) {
      if (origins.size >= 256) origins.clear();
      origin = requestOrigin(request);
      origins.set(place, origin);
    }
    return origin ?? ownUrl();
  };
}
