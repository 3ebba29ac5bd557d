/**
 * Refused requests leave a trace: one app-level hook reads every answer of 400 or more, as the
 * error handler wrote it, and hands the refusals to the recorder (admin/refusal-recorder.ts), which
 * keeps them in the log of the Store the request named, or in the service-wide log.
 *
 * What is a refusal here (docs/design.md, "Refused requests", says why):
 * - any answer ≥ 400 outside /admin, unless its statements went to the rejected-statement log
 *   (the statements route marks the request: `lrsRejectionLogged`) or it is an ordinary xAPI
 *   outcome: a lookup of a statement or document that does not exist (404), a document write or
 *   delete refused by its concurrency rules (409, 412);
 * - on the admin API, refused credentials and origins (401, 403, 429): a console user's invalid
 *   input is answered to that user and is no news to anyone else;
 * - a request in the alternate syntax is logged once, as the request it stands for (the inner one
 *   that the syntax dispatches), unless the syntax itself refused it.
 *
 * Never logged: the Authorization header, a secret from the query string (credential-like
 * parameters lose their value), any body.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readAuthorization } from '../../auth/credentials';
import type { RefusalLogOwner, RefusalRecorder } from '../../admin/refusal-recorder';
import type { Storage } from '../../storage/storage';
import { ALTERNATE_PREFIX } from './alternate-request-syntax';
import { xapiStoreSlug } from '../xapi-path';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request's statements were kept in the rejected-statement log: not a refusal to log again. */
    lrsRejectionLogged: boolean;
    /** The error answer's code and message, read as it is sent. */
    lrsErrorAnswer: { code: string; message: string } | null;
  }
}

/** Answers of the xAPI that are outcomes, not refusals: a lookup of nothing, a concurrency rule. */
const ORDINARY_OUTCOMES = new Set(['statement_not_found', 'document_not_found', 'precondition_failed', 'precondition_required', 'document_conflict']);
/** Admin API answers that are refusals: credentials, origin, backoff. */
const ADMIN_REFUSALS = new Set([401, 403, 429]);
/** Query parameters that could carry a credential: their value is never kept. */
const CREDENTIAL_PARAM = /^(authorization|auth|token|access_token|bearer|secret|password|passwd|pwd|key|api_?key|client_secret)$/i;
const MAX_PATH = 1000;
const MAX_TEXT = 1000;

/** The path and query string of a request as the log keeps it: credential-like values removed. */
function loggedPath(url: string): string {
  const unprefixed = url.startsWith(ALTERNATE_PREFIX) ? url.slice(ALTERNATE_PREFIX.length) : url;
  const queryAt = unprefixed.indexOf('?');
  if (queryAt < 0) return unprefixed.slice(0, MAX_PATH);
  const params = new URLSearchParams(unprefixed.slice(queryAt + 1));
  const kept = [...params].map(([name, value]): [string, string] => [name, CREDENTIAL_PARAM.test(name) ? '(removed)' : value]);
  const query = new URLSearchParams(kept).toString();
  return (query === '' ? unprefixed.slice(0, queryAt) : `${unprefixed.slice(0, queryAt)}?${query}`).slice(0, MAX_PATH);
}

function errorAnswer(payload: unknown): { code: string; message: string } | null {
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  if (text === null || text.length > 65_536) return null;
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof error?.code === 'string' && typeof error.message === 'string') return { code: error.code, message: error.message };
  } catch {
    // not the service's error shape (a document's own content): described by its status below
  }
  return null;
}

function isRefusal(request: FastifyRequest, reply: FastifyReply, path: string, answer: { code: string } | null): boolean {
  if (reply.statusCode < 400 || request.lrsRejectionLogged) return false;
  if (path.startsWith('/admin/api/') || path === '/admin/api') return ADMIN_REFUSALS.has(reply.statusCode);
  if (path.startsWith('/admin')) return false; // the console's own files
  if (request.url.startsWith(ALTERNATE_PREFIX)) {
    // Dispatched requests are logged as themselves; only the syntax's own refusals are logged here.
    return answer?.code === 'invalid_alternate_request' || answer?.code === 'not_found';
  }
  return answer === null || !ORDINARY_OUTCOMES.has(answer.code);
}

/** Reads the answers the error handling writes (lore-error-handling), so it comes after it. */
export const refusalLogPlugin = fp(refusalLog, { name: 'lore-refusal-log', fastify: '5.x', dependencies: ['lore-error-handling'] });

async function refusalLog(app: FastifyInstance, deps: { storage: Storage; recorder: RefusalRecorder }): Promise<void> {
  const { storage, recorder } = deps;
  app.decorateRequest('lrsRejectionLogged', false);
  app.decorateRequest('lrsErrorAnswer', null);

  /** The log a refusal belongs in: the Store named by the path, else the key's, else the service's. */
  const ownerOf = async (request: FastifyRequest, path: string): Promise<RefusalLogOwner> => {
    if (path.startsWith('/admin')) return null;
    const slug = xapiStoreSlug(path);
    if (slug !== null) {
      const store = await storage.findStoreBySlug(slug);
      return store && { id: store.id, slug: store.slug };
    }
    if (request.lrsStore) return { id: request.lrsStore.id, slug: request.lrsStore.slug };
    const presented = readAuthorization(request.headers.authorization);
    if (presented.kind !== 'key') return null;
    const key = await storage.findApiKey(presented.keyId);
    const store = key && (await storage.findStoreById(key.storeId));
    return store ? { id: store.id, slug: store.slug } : null;
  };

  // Read as it is sent: the body the error handler produced.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode >= 400) request.lrsErrorAnswer = errorAnswer(payload);
    return payload;
  });

  // After the answer is on its way: nothing here delays the client. The refusal is recorded before
  // anything is awaited, its log looked up meanwhile: the next request cannot overtake it.
  app.addHook('onResponse', async (request, reply) => {
    const path = loggedPath(request.url);
    const answer = request.lrsErrorAnswer;
    if (!isRefusal(request, reply, path, answer)) return;
    try {
      const presented = path.startsWith('/admin') ? null : readAuthorization(request.headers.authorization);
      const userAgent = request.headers['user-agent'];
      recorder.record(ownerOf(request, path), {
        at: new Date().toISOString(),
        method: request.method,
        path,
        status: reply.statusCode,
        code: answer?.code ?? 'error',
        reason: (answer?.message ?? `Answered ${reply.statusCode}.`).slice(0, MAX_TEXT),
        keyId: presented?.kind === 'key' ? presented.keyId.slice(0, 100) : null,
        client: request.ip,
        userAgent: typeof userAgent === 'string' ? userAgent.slice(0, MAX_TEXT) : null,
      });
    } catch (error) {
      // Logging a refusal must never fail anything: the request is already answered.
      request.log.warn({ err: error }, 'a refused request could not be logged');
    }
  });
}
