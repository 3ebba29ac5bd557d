/**
 * Requests per second per API key on the xAPI routes (a token bucket per key: rate-limit.ts), in
 * preHandler after authentication: it needs the key and its Store's limits.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { effectiveLimits, type ServiceLimits } from '../../limits/service-limits';
import type { Storage } from '../../storage/storage';
import { errors } from '../errors';
import { number, storeLimitsOf } from './limit-answers';
import type { TokenBuckets } from './rate-limit';

/** After the key is known (lore-xapi-context). */
export const keyRateLimitPlugin = fp(keyRateLimit, {
  name: 'lore-key-rate-limit',
  fastify: '5.x',
  dependencies: ['lore-xapi-context'],
  decorators: { request: ['lrsKey', 'lrsStore'] },
});

async function keyRateLimit(app: FastifyInstance, deps: { storage: Storage; limits: ServiceLimits; buckets: TokenBuckets }): Promise<void> {
  const service = deps.limits;
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
  });
}
