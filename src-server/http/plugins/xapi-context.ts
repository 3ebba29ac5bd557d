/**
 * What every xAPI request needs before its route runs: the version header (xAPI Part Three §6.2),
 * the key (Basic or Bearer) and the Store it is allowed to act on.
 *
 * Order: version header, then credentials (401), then the Store in the path (404), then whether
 * the key belongs to it (403) — so that nobody learns which Stores exist without a valid key.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateApiKey, type KeyCheck } from '../../auth/api-key-check';
import { readAuthorization } from '../../auth/credentials';
import type { ApiKeyRecord, Storage, StoreRecord } from '../../storage/storage';
import { ACCEPTED_VERSIONS_TEXT, VERSION_HEADER, parseVersionHeader, type XapiVersion } from '../../xapi/version';
import { errors } from '../errors';
import type { PublicUrlOf } from '../request-origin';

declare module 'fastify' {
  interface FastifyRequest {
    xapiVersion: XapiVersion;
    lrsStore: StoreRecord;
    lrsKey: ApiKeyRecord;
  }
}

/** What the service answers in X-Experience-API-Version for each rule set. */
const RESPONSE_VERSION: Record<XapiVersion, string> = { '1.0.3': '1.0.3', '2.0.0': '2.0.0' };

/** Decorates every request of its scope with `xapiVersion`, `lrsStore` and `lrsKey`, which later plugins declare they need. */
export const xapiContextPlugin = fp(xapiContext, { name: 'lore-xapi-context', fastify: '5.x' });

async function xapiContext(
  app: FastifyInstance,
  options: { storage: Storage; publicRoutes: string[]; publicUrl: PublicUrlOf },
): Promise<void> {
  const { storage, publicUrl } = options;
  app.decorateRequest('xapiVersion', '1.0.3');
  app.decorateRequest('lrsStore', null as unknown as StoreRecord);
  app.decorateRequest('lrsKey', null as unknown as ApiKeyRecord);

  const isPublic = (request: FastifyRequest) =>
    options.publicRoutes.some((suffix) => request.routeOptions.url?.endsWith(suffix));

  // A request without a usable header is refused, and its answer still names a version: the one
  // these credentials last used with success (a 1.0.3 client reads "1.0.3", a 2.0 client
  // "2.0.0"; ADL's suites check both), else the newest. Only authenticated requests are
  // remembered, so nobody can change what another key's refusals say.
  const lastVersions = new Map<string, XapiVersion>();
  const rememberedVersion = (authorization: string | undefined): XapiVersion | undefined => {
    const presented = readAuthorization(authorization);
    return presented.kind === 'key' ? lastVersions.get(presented.keyId) : undefined;
  };

  app.addHook('onRequest', async (request, reply) => {
    // Documents come back with the Content-Type their writer chose, and keys ship inside course
    // packages: a stored text/html document must never run as a page on this origin (the console
    // lives here too). Browsers then treat every xAPI answer as inert data.
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Content-Security-Policy', "sandbox; default-src 'none'");
    const header = request.headers[VERSION_HEADER];
    const version = parseVersionHeader(Array.isArray(header) ? header[0] : header);
    reply.header('X-Experience-API-Version', RESPONSE_VERSION[version ?? rememberedVersion(request.headers.authorization) ?? '2.0.0']);
    if (version === null && !isPublic(request)) {
      throw errors.versionHeader(
        header === undefined
          ? `The X-Experience-API-Version header is required. Accepted: ${ACCEPTED_VERSIONS_TEXT}.`
          : `X-Experience-API-Version "${String(header)}" is not supported. Accepted: ${ACCEPTED_VERSIONS_TEXT}.`,
      );
    }
    request.xapiVersion = version ?? '2.0.0';
  });

  app.addHook('preHandler', async (request) => {
    const slug = (request.params as { slug?: string }).slug;
    if (isPublic(request)) {
      if (slug !== undefined && !(await storage.findStoreBySlug(slug))) throw errors.storeNotFound(slug, publicUrl(request));
      return;
    }
    const presented = readAuthorization(request.headers.authorization);
    if (presented.kind === 'missing') {
      throw errors.unauthenticated('Credentials are required: send "Authorization: Basic <key id:secret in base64>" or "Authorization: Bearer <token>".');
    }
    if (presented.kind === 'malformed') throw errors.unauthenticated(`The Authorization header is malformed: ${presented.reason}.`);
    const check = await authenticateApiKey(storage, presented.keyId, presented.secret);
    if (!check.ok) throw errors.unauthenticated(refusedKeyMessage(check, presented.keyId));
    const key = check.key;
    const store = slug === undefined ? await storage.findStoreById(key.storeId) : await storage.findStoreBySlug(slug);
    if (!store) throw errors.storeNotFound(slug ?? '', publicUrl(request));
    if (store.id !== key.storeId) throw errors.wrongStore(store.slug, key.id);
    request.lrsKey = key;
    lastVersions.delete(key.id);
    lastVersions.set(key.id, request.xapiVersion);
    // Bounded: the oldest-used keys are forgotten first.
    if (lastVersions.size > 10_000) lastVersions.delete(lastVersions.keys().next().value!);
    request.lrsStore = store;
  });
}

/** Which part of the credentials failed, in words that say what to fix. */
function refusedKeyMessage(check: Extract<KeyCheck, { ok: false }>, keyId: string): string {
  switch (check.reason) {
    case 'unknown_key':
      return `No API key has the id "${keyId.slice(0, 100)}": check the key (the user name of Basic credentials) against Settings → API Keys.`;
    case 'wrong_secret':
      return `The secret does not match API key "${keyId}": check the secret (the password of Basic credentials); a key's secret is shown only when it is created or rotated.`;
    case 'revoked':
      return `API key "${keyId}" was revoked at ${check.key.revokedAt}; create a new key for this content.`;
    case 'expired':
      return `API key "${keyId}" expired at ${check.key.expiresAt}${check.key.replacedBy ? `; it was rotated, use its replacement "${check.key.replacedBy}"` : '; create or rotate a key'}.`;
  }
}
