/**
 * What a body may hold on the xAPI routes, checked in preHandler after authentication (the
 * Store's limits need the key): statements per batch, the JSON and attachment sizes of a
 * multipart/mixed statement request, and the depth of a JSON document (State, Activity Profile,
 * Agent Profile), as a POST merges it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { effectiveLimits, type ServiceLimits } from '../../limits/service-limits';
import { mediaTypeOf, parseMultipart } from '../../xapi/multipart';
import { LrsError } from '../errors';
import { batchTooLarge, isStatementWrite, number, scanFault, storeLimitsOf } from './limit-answers';
import { scanJson } from './limits-json-scan';

/** After the rate limit (a request over its rate is refused before its body is looked at). */
export const bodyContentLimitsPlugin = fp(bodyContentLimits, {
  name: 'lore-body-content-limits',
  fastify: '5.x',
  dependencies: ['lore-xapi-context', 'lore-json-body-limits', 'lore-key-rate-limit'],
  decorators: { request: ['lrsKey', 'lrsStore', 'lrsBodyScan'] },
});

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

async function bodyContentLimits(app: FastifyInstance, deps: { limits: ServiceLimits }): Promise<void> {
  const service = deps.limits;
  app.addHook('preHandler', async (request) => {
    // Public routes (/about) carry no key: nothing to check.
    if (!request.lrsKey) return;
    const limits = effectiveLimits(service, storeLimitsOf(request.lrsStore));
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

