/**
 * The request-side limits of src-server/limits/service-limits.ts, enforced on the xAPI routes, and the backoff
 * against credential guessing on the xAPI and admin routes. Every refusal is a clear 4xx in
 * the error shape of docs/design.md; nothing is stored for a refused request.
 *
 * When each check runs, and why there:
 * - Body size, in preParsing: before a byte of the body is buffered. A declared Content-Length
 *   over the limit is refused at once; a chunked body is counted as it streams and refused at the
 *   first byte past the limit. Either way the answer closes the connection, so the rest of the
 *   body is never read. The limit is the Store's, so the Store is looked up from the path's slug
 *   (or, on /xapi/, from the key id presented): credentials are checked later, in preHandler, so
 *   an unauthenticated client may use the largest limit of the Store it names — never more.
 *   Fastify's own bodyLimit on these routes is raised to the ceiling so that this is the check.
 * - JSON depth and string length, in the JSON parser: a scan of the text before JSON.parse (see
 *   limits-json-scan.ts). Both are service-wide: they protect the process, not a tenant's policy.
 * - Requests per second per key, batch size and attachment size, in preHandler after
 *   authentication: they need the key and its Store. Admin routes have no rate limit.
 */
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readAuthorization } from '../../auth/credentials';
import { effectiveLimits, MAX_BODY_BYTES_CEILING, MIN_BODY_BYTES_LIMIT, type ServiceLimits, type StoreLimits } from '../../limits/service-limits';
import type { Storage, StoreRecord } from '../../storage/storage';
import { formatPath, type PathSegment } from '../../xapi/issue';
import { mediaTypeOf, parseMultipart } from '../../xapi/multipart';
import { errors, LrsError } from '../errors';
import type { AuthBackoff } from './auth-backoff';
import { scanJson, type JsonScan } from './limits-json-scan';
import { findJsonSyntaxFault, invalidJsonMessage } from '../../xapi/json-syntax-error';
import type { TokenBuckets } from './rate-limit';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the JSON pre-scan saw of this request's body (null: not a JSON body). */
    lrsBodyScan: { topLevelItems: number | null } | null;
  }
}

export interface RequestLimitDeps {
  storage: Storage;
  limits: ServiceLimits;
  buckets: TokenBuckets;
}

/** A Store's overrides; absent on Stores (and data directories) that never set any. */
function storeLimitsOf(store: StoreRecord | null | undefined): StoreLimits | null {
  return store?.limits ?? null;
}

const number = (value: number) => value.toLocaleString('en-US');

function bodyTooLarge(limit: number, received: string): LrsError {
  return errors.bodyTooLarge(`The body is ${received}; this Store accepts at most ${number(limit)} bytes per request.`);
}

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
  payload.on('error', (error) => capped.destroy(error));
  return payload.pipe(capped);
}

function truncate(segment: PathSegment): PathSegment {
  return typeof segment === 'string' && segment.length > 200 ? `${segment.slice(0, 200)}…` : segment;
}

/** The scan's fault as a 400 naming the path; in a statement batch, the statement's index apart. */
function scanFault(scan: Extract<JsonScan, { ok: false }>, limits: ServiceLimits, batch: boolean): LrsError {
  let path = scan.path.map(truncate);
  let statementIndex: number | undefined;
  if (batch && typeof path[0] === 'number') {
    statementIndex = path[0];
    path = path.slice(1);
  }
  const field = formatPath(path);
  const where = field === '' ? (statementIndex === undefined ? 'the body' : `statement ${statementIndex}`) : field;
  if (scan.fault === 'depth') {
    return new LrsError(
      400,
      'json_too_deep',
      `${where} nests objects or arrays more than ${limits.maxJsonDepth} levels deep (counted from the top of the body); this service accepts at most ${limits.maxJsonDepth}.`,
      { field, statementIndex },
    );
  }
  const what = scan.inKey ? `A member name in ${where}` : where;
  return new LrsError(
    400,
    'string_too_long',
    `${what} is a string of ${number(scan.length ?? 0)} characters; this service accepts at most ${number(limits.maxStringLength)}.`,
    { field, statementIndex },
  );
}

function isStatementWrite(request: FastifyRequest): boolean {
  return (request.method === 'POST' || request.method === 'PUT') && (request.routeOptions.url ?? '').endsWith('/statements');
}

function batchTooLarge(items: number, limit: number): LrsError {
  return new LrsError(
    413,
    'batch_too_large',
    `The batch holds ${number(items)} statements; this Store accepts at most ${number(limit)} per request: send them in smaller batches.`,
  );
}

/** Batch size, JSON limits and attachment sizes of a multipart/mixed statements request (xAPI Part Three §1.5.2). */
function checkMultipartStatements(body: Buffer, contentType: string, limits: ServiceLimits): void {
  const multipart = parseMultipart(body, contentType);
  // A body that is not valid multipart is refused by the route, with its own message.
  if (!multipart.ok) return;
  const [first, ...attachments] = multipart.parts;
  if (first) {
    const scan = scanJson(first.body.toString('utf8'), { maxDepth: limits.maxJsonDepth, maxStringLength: limits.maxStringLength });
    if (!scan.ok) throw scanFault(scan, limits, true);
    if (scan.topLevelItems !== null && scan.topLevelItems > limits.maxBatch) throw batchTooLarge(scan.topLevelItems, limits.maxBatch);
  }
  for (const [index, part] of attachments.entries()) {
    if (part.body.length > limits.maxAttachmentBytes) {
      const hash = part.headers['x-experience-api-hash'];
      throw new LrsError(
        413,
        'attachment_too_large',
        `Part ${index + 2}${hash ? ` (the attachment with sha2 ${hash.slice(0, 128)})` : ''} is ${number(part.body.length)} bytes; this Store accepts attachments of at most ${number(limits.maxAttachmentBytes)} bytes.`,
      );
    }
  }
}

/** On an xAPI scope, after registerXapiContext (its preHandler authenticates before this one counts). */
export function registerRequestLimits(app: FastifyInstance, deps: RequestLimitDeps): void {
  const service = deps.limits;
  const ceiling = Math.max(service.maxBodyBytes, MAX_BODY_BYTES_CEILING);
  app.decorateRequest('lrsBodyScan', null);

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

  // Every JSON body is scanned before it is parsed. Other bodies (documents, multipart) arrive as
  // bytes and are checked in preHandler where they are JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const scan = scanJson(text, { maxDepth: service.maxJsonDepth, maxStringLength: service.maxStringLength });
    if (!scan.ok) {
      done(scanFault(scan, service, isStatementWrite(request)), undefined);
      return;
    }
    request.lrsBodyScan = scan;
    // Called in its callback form: it answers through `done`, whatever it returns.
    void parseJson(request, text, (error, value) => {
      if (error === null) return done(null, value);
      // Valid JSON refused anyway (a forbidden __proto__ key) keeps the parser's own message.
      done(findJsonSyntaxFault(text) === null ? error : errors.invalidBody(invalidJsonMessage(text)), undefined);
    });
  });

  app.addHook('preHandler', async (request) => {
    // Public routes (/about) carry no key: nothing to count.
    if (!request.lrsKey) return;
    const limits = effectiveLimits(service, storeLimitsOf(request.lrsStore));
    // Several processes on one database each take their share of the limit (approximate: it
    // assumes the proxy spreads a key's requests over them; docs/deploy.md).
    const processes = deps.storage.processCount?.() ?? 1;
    const rate = deps.buckets.take(request.lrsKey.id, {
      perSecond: limits.ratePerSecond / processes,
      burst: Math.max(1, Math.floor(limits.rateBurst / processes)),
    });
    if (!rate.ok) {
      throw errors.tooManyRequests(
        'rate_limited',
        `This API key sent more than ${number(limits.ratePerSecond)} requests per second (bursts up to ${number(limits.rateBurst)}); retry in ${rate.retryAfterSeconds} s.`,
        rate.retryAfterSeconds,
      );
    }
    const contentType = request.headers['content-type'];
    const mediaType = mediaTypeOf(contentType);
    if (isStatementWrite(request)) {
      const items = request.lrsBodyScan?.topLevelItems ?? null;
      if (items !== null && items > limits.maxBatch) throw batchTooLarge(items, limits.maxBatch);
      if (mediaType === 'multipart/mixed' && Buffer.isBuffer(request.body)) checkMultipartStatements(request.body, contentType!, limits);
      return;
    }
    // A JSON document (State, Activity Profile, Agent Profile): its depth, as a POST merges it.
    if (mediaType === 'application/json' && Buffer.isBuffer(request.body)) {
      const scan = scanJson(request.body.toString('utf8'), { maxDepth: limits.maxJsonDepth, maxStringLength: Number.MAX_SAFE_INTEGER });
      if (!scan.ok) throw scanFault(scan, limits, false);
    }
  });
}

/**
 * Backoff against credential guessing (auth-backoff.ts) on one scope: a blocked address and
 * credential is answered 429 before its credentials are checked; a 401 counts as a failure; an
 * answer after a credential was verified forgets the failures.
 */
export function registerAuthBackoff(
  app: FastifyInstance,
  backoff: AuthBackoff,
  scope: {
    /** Which credentials are presented ("xapi", "admin"); null when none are (nothing to guess). */
    identity: (request: FastifyRequest) => string | null;
    /** Whether this request's credentials were checked and accepted. */
    verified: (request: FastifyRequest, reply: FastifyReply) => boolean;
  },
): void {
  // Per client address: key ids are public, so counting per key id would let anyone who reads
  // a statement's authority lock that key's owner out.
  const keyOf = (request: FastifyRequest): string | null => {
    const identity = scope.identity(request);
    return identity === null ? null : `${request.ip} ${identity}`;
  };
  // While an address is blocked its credentials are still checked: the right ones pass, so a
  // wrong secret sent from the same address (a school router, a proxy) never stops a course
  // whose secret is right. Only failures are answered 429 instead of 401, Retry-After capped.
  const blockedFor = new WeakMap<FastifyRequest, number>();
  const refused = new WeakSet<FastifyRequest>();
  app.addHook('onRequest', async (request) => {
    const key = keyOf(request);
    if (key === null) return;
    const decision = backoff.check(key);
    if (!decision.ok) blockedFor.set(request, decision.retryAfterSeconds);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 401) return payload;
    refused.add(request);
    // Counted before the answer leaves, not after it: the client's next try (sent once it has this
    // answer) is checked against this failure, however long other hooks take to finish this one.
    const key = keyOf(request);
    if (key !== null) backoff.fail(key);
    const retryAfter = blockedFor.get(request);
    if (retryAfter === undefined) return payload;
    const refusal = errors.tooManyRequests(
      'too_many_failed_attempts',
      `Too many requests with wrong credentials came from this address, and these are wrong too; retry in ${retryAfter} s. Requests with the right credentials are served meanwhile.`,
      retryAfter,
    );
    reply.code(refusal.status).headers(refusal.headers).removeHeader('www-authenticate');
    return JSON.stringify(refusal.toBody());
  });
  app.addHook('onResponse', async (request, reply) => {
    const key = keyOf(request);
    if (key === null) return;
    if (!refused.has(request) && scope.verified(request, reply)) backoff.succeed(key);
  });
}

/** "xapi" when an xAPI request presents an API key's credentials. */
export function presentedXapiCredentials(request: FastifyRequest): string | null {
  return readAuthorization(request.headers.authorization).kind === 'key' ? 'xapi' : null;
}
