/**
 * Backoff against credential guessing (auth-backoff.ts) on the xAPI and admin routes, per client
 * address and kind of credential.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { readAuthorization } from '../../auth/credentials';
import { errors } from '../errors';
import type { AuthBackoff } from './auth-backoff';

interface FailedCredentialsOptions {
  backoff: AuthBackoff;
  /** Which credentials are presented ("xapi", "admin"); null when none are (nothing to guess). */
  identity: (request: FastifyRequest) => string | null;
  /** Whether this request's credentials were checked and accepted. */
  verified: (request: FastifyRequest, reply: FastifyReply) => boolean;
}

/**
 * Backoff against credential guessing (auth-backoff.ts) on one scope: a blocked address and
 * credential is answered 429 before its credentials are checked; a 401 counts as a failure; an
 * answer after a credential was verified forgets the failures.
 */
export const failedCredentialsPlugin = fp(failedCredentials, { name: 'lore-failed-credentials', fastify: '5.x' });

async function failedCredentials(app: FastifyInstance, options: FailedCredentialsOptions): Promise<void> {
  const { backoff, ...scope } = options;
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
