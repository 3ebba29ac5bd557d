/**
 * Guards the admin surface (/admin/ and /admin/api/...) against other web pages in the user's
 * browser, before authentication runs.
 *
 * Why, when the admin API needs a bearer token anyway:
 * - DNS rebinding. A page from evil.example can make its own name resolve to 127.0.0.1 and then
 *   talk to a service on the user's loopback port as if it were same-origin. The browser still
 *   sends `Host: evil.example`, so a service bound to loopback answers only to loopback names (and
 *   to the configured public URL's host, for a reverse proxy on the same machine). This keeps a
 *   rebinding page from reading even the unauthenticated parts (the console page, the OpenAPI
 *   description) and from probing the token.
 * - Cross-site requests (CSRF). A state-changing request from a browser carries `Origin`; only the
 *   service's own origin (the web console) may send one. Requests without `Origin` come from
 *   non-browser clients (curl, the desktop app's main process), which no page can forge.
 * A service bound to another address (0.0.0.0, a LAN address) is reached under names the operator
 * chooses, so its Host is not checked; Origin still is.
 *
 * The Host check reads the Host header itself, never X-Forwarded-Host, even from a trusted proxy:
 * a proxy on this machine (--trust-proxy 127.0.0.1) has the same address as a browser here, whose
 * rebinding page could send that header. The Origin check also accepts the origin a trusted proxy
 * forwards (X-Forwarded-Proto and -Host, request-origin.ts), the one the console's page was served
 * from behind it: the service hands out its URLs under that origin when no --public-url is set.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { LrsError } from '../errors';
import { requestOrigin } from '../request-origin';

export interface AdminGuardPolicy {
  /** The address the service listens on (--host); undefined is treated as loopback. */
  bindHost?: string;
  /** The public URL (--public-url); its host is accepted as Host and as Origin too. */
  publicUrl?: string;
}

export interface AdminRequestFacts {
  method: string;
  /** The Host header as sent, e.g. `127.0.0.1:8411`. */
  host: string | undefined;
  /** The Origin header as sent, when there is one. */
  origin: string | undefined;
  /** The origin the request came to, a trusted proxy's forwarded one included (request-origin.ts); null if unusable. */
  requestOrigin?: string | null;
}

export type AdminGuardVerdict =
  | { ok: true }
  | { ok: false; code: 'host_not_allowed' | 'origin_not_allowed'; message: string };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The hostname of a Host header value (`[::1]:8411` → `[::1]`), lower-cased; null if malformed. */
function hostnameOf(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Names that always mean this machine: no DNS answer can point them elsewhere (RFC 6761 §6.3). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '[::1]' || name === '::1') return true;
  return /^127(\.\d{1,3}){3}$/.test(name);
}

function isLoopbackBinding(bindHost: string | undefined): boolean {
  return bindHost === undefined || isLoopbackName(bindHost);
}

function publicHost(publicUrl: string | undefined): URL | null {
  if (!publicUrl) return null;
  try {
    return new URL(publicUrl);
  } catch {
    return null;
  }
}

/** Decides whether an admin request may proceed. Pure: table-tested in test/http/admin-guard.test.ts. */
export function checkAdminRequest(facts: AdminRequestFacts, policy: AdminGuardPolicy): AdminGuardVerdict {
  const configured = publicHost(policy.publicUrl);
  if (facts.host !== undefined && isLoopbackBinding(policy.bindHost)) {
    const hostname = hostnameOf(facts.host);
    const allowed = hostname !== null && (isLoopbackName(hostname) || hostname === configured?.hostname.toLowerCase());
    if (!allowed) {
      return {
        ok: false,
        code: 'host_not_allowed',
        message: `This service listens on a loopback address and answers admin requests only for localhost, 127.0.0.1 or [::1]${
          configured ? ` or ${configured.hostname}` : ''
        }, not for the host "${facts.host}". Behind a proxy, set --public-url.`,
      };
    }
  }
  if (facts.origin !== undefined && !SAFE_METHODS.has(facts.method.toUpperCase())) {
    let origin: URL | null = null;
    try {
      origin = facts.origin === 'null' ? null : new URL(facts.origin);
    } catch {
      origin = null;
    }
    const sameAsHost = origin !== null && facts.host !== undefined && sameHost(origin, facts.host);
    const sameAsPublic = origin !== null && configured !== null && origin.origin === configured.origin;
    const sameAsForwarded = origin !== null && facts.requestOrigin != null && origin.origin === facts.requestOrigin;
    if (!sameAsHost && !sameAsPublic && !sameAsForwarded) {
      return {
        ok: false,
        code: 'origin_not_allowed',
        message: `Admin changes are accepted only from the service's own pages; the origin "${facts.origin}" is another site.`,
      };
    }
  }
  return { ok: true };
}

/** Whether `origin` names the same host and port as the Host header (default ports normalised). */
function sameHost(origin: URL, host: string): boolean {
  if (origin.protocol !== 'http:' && origin.protocol !== 'https:') return false;
  try {
    return new URL(`${origin.protocol}//${host}`).host.toLowerCase() === origin.host.toLowerCase();
  } catch {
    return false;
  }
}

/** Paths of the admin surface: /admin, /admin/..., /admin?... (not a Store slug that starts with "admin"). */
const ADMIN_SURFACE = /^\/admin(?:[/?#]|$)/;

/**
 * Whether a request reaches the admin surface. The router matches the percent-decoded path, so the
 * guard must too: `/%61dmin/api` is `/admin/api`. A path that does not decode is treated as admin
 * (fail closed); the router refuses it anyway.
 */
function isAdminSurface(url: string): boolean {
  const path = url.split('?')[0]!;
  try {
    return ADMIN_SURFACE.test(decodeURIComponent(path));
  } catch {
    return true;
  }
}

/** Applies checkAdminRequest to every request of the admin surface, with 403 and a plain reason. */
export const adminGuardPlugin = fp(adminGuard, { name: 'lore-admin-guard', fastify: '5.x' });

async function adminGuard(app: FastifyInstance, { policy }: { policy: () => AdminGuardPolicy }): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (!isAdminSurface(request.url)) return;
    const origin = request.headers.origin;
    const verdict = checkAdminRequest(
      { method: request.method, host: request.headers.host, origin: typeof origin === 'string' ? origin : undefined, requestOrigin: requestOrigin(request) },
      policy(),
    );
    if (!verdict.ok) throw new LrsError(403, verdict.code, verdict.message);
  });
}
