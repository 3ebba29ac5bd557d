/**
 * /admin/api/stores/:slug/statements: the Statement Explorer's search; /admin/api/stores/:slug/suggestions:
 * what its filters could mean, from what the Store holds.
 */
import type { FastifyInstance } from 'fastify';
import { explorerQuerySchema, explorerSuggestQuerySchema } from '../../../admin/contract';
import { searchStatements } from '../../../admin/explorer';
import { suggest } from '../../../admin/explorer-filters';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export default async function explorerRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  app.get<{ Params: { slug: string } }>('/stores/:slug/statements', async (request, reply) => {
    const store = await findStoreOr404(deps.storage, request.params.slug);
    const input = parseInput(explorerQuerySchema, request.query, 'query');
    const search = await searchStatements(deps.storage, store, input);
    if (!search.ok) throw errors.invalidParameter(search.message, search.field);
    // Written as UTF-8 bytes (admin/explorer.ts, explorerPageUtf8): the statements' stored text as it is.
    return reply.type('application/json; charset=utf-8').send(search.body);
  });

  app.get<{ Params: { slug: string } }>('/stores/:slug/suggestions', async (request) => {
    const store = await findStoreOr404(deps.storage, request.params.slug);
    return suggest(deps.storage, store, parseInput(explorerSuggestQuerySchema, request.query, 'query'));
  });
}
