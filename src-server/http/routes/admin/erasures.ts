/**
 * /admin/api/stores/:slug/erasures: forgetting a learner (POST, with `dryRun` to see what would
 * go) and the Store's erasure ledger (GET). docs/erasure-and-retention.md.
 */
import type { FastifyInstance } from 'fastify';
import { erasureInputSchema } from '../../../admin/contract';
import { erasureKeysOf, eraseLearner } from '../../../admin/erasures';
import type { RefusalRecorder } from '../../../admin/refusal-recorder';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export interface ErasureRouteOptions extends AdminRouteDeps {
  recorder: RefusalRecorder;
}

export default async function erasureRoutes(app: FastifyInstance, options: ErasureRouteOptions): Promise<void> {
  const { storage } = options;

  app.post<{ Params: { slug: string } }>('/stores/:slug/erasures', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const input = parseInput(erasureInputSchema, request.body, 'body');
    const keys = erasureKeysOf(input);
    if (!keys.ok) throw errors.invalidBody(keys.message, keys.field);
    // Refused requests still in the recorder's buffer are written first, so the erasure reaches them.
    await options.recorder.flush();
    const outcome = await eraseLearner(storage, store, keys.keys, { dryRun: input.dryRun });
    // The audit entry (http/plugins/audit-trail.ts) keeps the counts and the ledger's salted
    // hashes, never the agent given.
    request.auditDetail = {
      dryRun: input.dryRun,
      counts: outcome.counts,
      ...(outcome.erasure ? { erasure: outcome.erasure.id, ifiHashes: outcome.erasure.ifiHashes } : {}),
    };
    return outcome;
  });

  app.get<{ Params: { slug: string } }>('/stores/:slug/erasures', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    return { erasures: await storage.listErasures(store.id) };
  });
}
