/**
 * The size of a request body on the xAPI routes, checked in preParsing: before a byte of the body
 * is buffered. A declared Content-Length over the limit is refused at once; a chunked body is
 * counted as it streams and refused at the first byte past the limit. Either way the answer closes
 * the connection, so the rest of the body is never read. The limit is the Store's, so the Store is
 * looked up from the path's slug (or, on /xapi/, from the key id presented): credentials are
 * checked later, in preHandler, so an unauthenticated client may use the largest limit of the
 * Store it names — never more. Fastify's own bodyLimit on these routes is raised to the ceiling so
 * that this is the check.
 */
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { readAuthorization } from '../../auth/credentials';
import { effectiveLimits, MAX_BODY_BYTES_CEILING, MIN_BODY_BYTES_LIMIT, type ServiceLimits } from '../../limits/service-limits';
import type { Storage, StoreRecord } from '../../storage/storage';
import { bodyTooLarge, number, storeLimitsOf } from './limit-answers';

export const bodySizeLimitPlugin = fp(bodySizeLimit, { name: 'lore-body-size-limit', fastify: '5.x' });

/** Counts a body without Content-Length as it streams, and fails at the first byte past `limit`. */
function capStream(payload: Readable, limit: number): Readable {
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) callback(bodyTooLarge(limit, `larger than ${number(limit)} bytes`));
      else callback(null, chunk);
    },
  });
  // A client that closes its connection mid-body makes the request fail ('aborted', ECONNRESET),
  // passed on here so that a reader sees the body fail. Nobody may be reading `capped` by then:
  // Fastify never reads the body of a GET or HEAD, and stops listening once it has answered. An
  // 'error' with no listener throws and ends the process, so `capped` keeps a listener of its own,
  // as Node's IncomingMessage does for the request: readers that listen still get the error.
  capped.on('error', ignoreUnreadBodyError);
  payload.on('error', (error) => capped.destroy(error));
  return payload.pipe(capped);
}

/** The error of a body nobody reads any more: its reader, if any, has its own listener. */
function ignoreUnreadBodyError(): void {}

async function bodySizeLimit(app: FastifyInstance, deps: { storage: Storage; limits: ServiceLimits }): Promise<void> {
  const service = deps.limits;
  const ceiling = Math.max(service.maxBodyBytes, MAX_BODY_BYTES_CEILING);
  app.addHook('onRoute', (route) => {
    route.bodyLimit = ceiling;
  });

  /** The Store a request names before its credentials are checked: by slug, else by the key id presented. */
  const namedStore = async (request: FastifyRequest): Promise<StoreRecord | null> => {
    const slug = (request.params as { slug?: string } | undefined)?.slug;
    if (slug !== undefined) return deps.storage.findStoreBySlug(slug);
    const presented = readAuthorization(request.headers.authorization);
    if (presented.kind !== 'key') return null;
    const key = await deps.storage.findApiKey(presented.keyId);
    return key ? deps.storage.findStoreById(key.storeId) : null;
  };

  app.addHook('preParsing', async (request, _reply, payload) => {
    const declared = request.headers['content-length'];
    if (declared === undefined && request.headers['transfer-encoding'] === undefined) return payload;
    // Within every limit a Store can set: no need to find the Store (the usual statement POST).
    if (declared !== undefined && Number(declared) <= MIN_BODY_BYTES_LIMIT) return payload;
    const limit = effectiveLimits(service, storeLimitsOf(await namedStore(request))).maxBodyBytes;
    if (declared !== undefined) {
      // Node frames a body with Content-Length by it: the body cannot be longer than declared.
      if (Number(declared) > limit) throw bodyTooLarge(limit, `${number(Number(declared))} bytes (Content-Length)`);
      return payload;
    }
    return capStream(payload, limit);
  });

}
