/** /admin/api/metrics/ingestion: the Ingestion screen's report, one Store or every Store. */
import type { FastifyInstance } from 'fastify';
import { ingestionQuerySchema } from '../../../admin/contract';
import { ingestionRange, ingestionReport } from '../../../admin/ingestion';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export default async function metricsRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  app.get('/metrics/ingestion', async (request) => {
    const input = parseInput(ingestionQuerySchema, request.query, 'query');
    const store = input.store === undefined ? null : await findStoreOr404(deps.storage, input.store);
    const range = ingestionRange(input);
    if (!range.ok) throw errors.invalidParameter(range.message, range.field);
    return ingestionReport(deps.storage, store, input, range);
  });
}
