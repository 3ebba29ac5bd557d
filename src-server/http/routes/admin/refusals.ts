/**
 * /admin/api/stores/:slug/refusals and /admin/api/refusals: the logs of refused requests (one per
 * Store, one for the service), newest first, with cursor paging like the Statement Explorer.
 */
import type { FastifyInstance } from 'fastify';
import type { RefusalPageView } from '../../../admin/contract';
import { refusalsQuerySchema } from '../../../admin/contract';
import type { RefusalRecorder } from '../../../admin/refusal-recorder';
import type { Storage } from '../../../storage/storage';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export interface RefusalRouteOptions extends AdminRouteDeps {
  recorder: RefusalRecorder;
}

async function refusalPage(storage: Storage, recorder: RefusalRecorder, storeId: string | null, query: unknown): Promise<RefusalPageView> {
  const input = parseInput(refusalsQuerySchema, query, 'query');
  // Refusals still in the recorder's buffer are written first: the page shows every one answered so far.
  await recorder.flush();
  const page = await storage.listRefusals({
    storeId,
    limit: input.limit,
    ...(input.cursor === undefined ? {} : { beforeId: Number(input.cursor) }),
  });
  return {
    refusals: page.refusals.map(({ storeId: _storeId, ...refusal }) => refusal),
    next: page.nextBeforeId === null ? null : String(page.nextBeforeId),
  };
}

export default async function refusalRoutes(app: FastifyInstance, options: RefusalRouteOptions): Promise<void> {
  app.get<{ Params: { slug: string } }>('/stores/:slug/refusals', async (request) => {
    const store = await findStoreOr404(options.storage, request.params.slug);
    return refusalPage(options.storage, options.recorder, store.id, request.query);
  });

  app.get('/refusals', async (request) => refusalPage(options.storage, options.recorder, null, request.query));
}
