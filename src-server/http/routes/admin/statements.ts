/** /admin/api/stores/:slug/statements: the Statement Explorer's search. */
import type { FastifyInstance } from 'fastify';
import { explorerQuerySchema } from '../../../admin/contract';
import { parseAgentSearch, searchStatements } from '../../../admin/explorer';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export default async function explorerRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  app.get<{ Params: { slug: string } }>('/stores/:slug/statements', async (request) => {
    const store = await findStoreOr404(deps.storage, request.params.slug);
    const input = parseInput(explorerQuerySchema, request.query, 'query');
    let agent: string | undefined;
    if (input.agent !== undefined) {
      const parsed = parseAgentSearch(input.agent);
      if (!parsed.ok) throw errors.invalidParameter(parsed.message, 'agent');
      agent = parsed.key;
    }
    return searchStatements(deps.storage, store, input, agent);
  });
}
