/**
 * One place where every error becomes the JSON error body of docs/design.md ("Errors"). Fastify's own client errors
 * (bad JSON, too large, wrong content type) keep their status and get a plain-words message;
 * anything else is a bug and answers 500 without details.
 */
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { LrsError, errors } from '../errors';
import type { PublicUrlOf } from '../request-origin';
import { XAPI_RESOURCES, xapiStoreSlug } from '../xapi-path';
import { StorageDuplicateError, StorageNotFoundError, StorageUnavailableError } from '../../storage/errors';
import { StorageDamagedError, StorageFullError } from '../../storage/errors';

const FASTIFY_MESSAGES: Record<string, (error: FastifyError) => LrsError> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (error) =>
    errors.unsupportedMediaType(`Unsupported Content-Type: ${error.message.replace(/^Unsupported Media Type:?\s*/i, '') || 'none'}; send application/json.`),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => errors.invalidBody('The body is empty; a JSON body was expected.'),
  FST_ERR_CTP_BODY_TOO_LARGE: (error) => errors.tooLarge(`The body is larger than this service accepts (${error.message}).`),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => errors.invalidBody('The Content-Length header does not match the body.'),
  FST_ERR_CTP_INVALID_CHARSET: () => errors.unsupportedMediaType('Unsupported charset; send UTF-8.'),
};

function toLrsError(error: unknown): LrsError | null {
  if (error instanceof LrsError) return error;
  if (error instanceof StorageFullError) return errors.storageFull(error.message);
  if (error instanceof StorageUnavailableError) return errors.storageUnavailable(storageUnavailableMessage(error));
  if (error instanceof StorageDamagedError) return errors.storageDamaged(error.message);
  // A request that raced another one (two creates of one slug, a delete during a write).
  if (error instanceof StorageDuplicateError) return errors.conflict(error.code, error.message);
  if (error instanceof StorageNotFoundError) return errors.notFound(error.code, error.message);
  const fastifyError = error as FastifyError;
  // The client closed its connection before the end of its body (a route reading the body as a
  // stream sees it fail): its fault, never a 500, though it is no longer there to read the answer.
  if (fastifyError?.code === 'ECONNRESET' || fastifyError?.code === 'ERR_STREAM_PREMATURE_CLOSE') {
    return errors.invalidBody('The body was cut off: the client closed the connection before sending all of it.');
  }
  if (typeof fastifyError?.code === 'string') {
    const known = FASTIFY_MESSAGES[fastifyError.code];
    if (known) return known(fastifyError);
  }
  if (error instanceof SyntaxError || fastifyError?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return errors.invalidBody(`The body is not valid JSON: ${(error as Error).message}`);
  }
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new LrsError(status, 'bad_request', fastifyError.message);
  }
  return null;
}

/**
 * A full disk (the data directory's, or the database server's as its storage words it) or a data
 * directory that cannot be written are named as such: the admin can act on them. They clear by
 * themselves once fixed (the storage probes the disk again), so they stay 503.
 */
function storageUnavailableMessage(error: StorageUnavailableError): string {
  if (error.plainMessage !== undefined) return error.plainMessage;
  let cause: unknown = error;
  for (let depth = 0; depth < 5 && cause instanceof Error; depth++, cause = cause.cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      return 'The disk holding the data directory is full; nothing was stored. Writes resume by themselves once space is freed: retry later.';
    }
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      return `The data directory cannot be written (${code}); nothing was stored. Writes resume by themselves once it can be: retry later.`;
    }
  }
  return `Storage is unavailable; nothing was stored. Retry later. (${error.message})`;
}

export const errorHandlingPlugin = fp(errorHandling, { name: 'lore-error-handling', fastify: '5.x' });

async function errorHandling(app: FastifyInstance, options: { publicUrl: PublicUrlOf }): Promise<void> {
  app.setErrorHandler((error, request, reply) => {
    const known = toLrsError(error);
    if (known) {
      return reply.code(known.status).headers(known.headers).send(known.toBody());
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply
      .code(500)
      .send({ error: { status: 500, code: 'internal_error', message: 'The service failed to handle this request; it has been logged.' } });
  });

  app.setNotFoundHandler((request, reply) => {
    const body = notFoundError(request.method, request.url, options.publicUrl(request)).toBody();
    return reply.code(404).send(body);
  });
}

/**
 * A 404 that guides: content usually gets here through an endpoint typed slightly wrong. Under a
 * Store it names the Store and the resources there; elsewhere it shows the shape of an endpoint.
 * It never says whether a Store exists: that needs a valid key (xapi-context.ts).
 */
function notFoundError(method: string, url: string, publicUrl: string): LrsError {
  const path = url.split('?')[0]!;
  const base = publicUrl.replace(/\/+$/, '') || '{base}';
  const slug = xapiStoreSlug(path);
  if (slug !== null) {
    const resource = path.replace(/^\/[^/]+\/xapi\/?/, '');
    return new LrsError(
      404,
      'resource_not_found',
      `Store "${slug}" has no xAPI resource "${resource}". Its endpoint is ${base}/${slug}/xAPI/ and the resources there are: ${XAPI_RESOURCES.join(', ')}.`,
    );
  }
  return new LrsError(
    404,
    'not_found',
    `Nothing is served at ${method} ${path}. An xAPI endpoint has the shape ${base}/<store_slug>/xAPI/ (for example ${base}/demo/xAPI/statements).`,
  );
}
