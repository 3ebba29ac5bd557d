/**
 * GET /admin/api/stores/:slug/export?format=ndjson|csv&<Explorer filters>: what the filter shows,
 * as a file, streamed (admin/statement-export.ts): a page is read only when the client has taken
 * the one before, so a slow client holds one page in memory, never the Store.
 */
import type { FastifyInstance } from 'fastify';
import { exportQuerySchema } from '../../../admin/contract';
import { explorerFilterOf } from '../../../admin/explorer';
import { EXPORT_MEDIA_TYPES, exportFileName, exportStream } from '../../../admin/statement-export';
import type { ExportProgress } from '../../../admin/statement-export';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

export default async function exportRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  app.get<{ Params: { slug: string } }>('/stores/:slug/export', async (request, reply) => {
    const store = await findStoreOr404(deps.storage, request.params.slug);
    const { format, ...filters } = parseInput(exportQuerySchema, request.query, 'query');
    if (format === 'ndjson' && filters.status === 'rejected') {
      throw errors.invalidParameter('status=rejected has no statements to export as NDJSON (a rejected entry is what was sent, not a statement): export it as format=csv', 'status');
    }
    const filter = await explorerFilterOf(deps.storage, store, filters);
    if (!filter.ok) throw errors.invalidParameter(filter.message, filter.field);
    const progress: ExportProgress = { count: 0, complete: false };
    // The audit entry (http/plugins/audit-trail.ts) reads this once the download has ended.
    request.auditDetail = {
      format,
      filters,
      get count() {
        return progress.count;
      },
      get complete() {
        return progress.complete;
      },
    };
    const stream = exportStream(deps.storage, store, filter.query, format, progress);
    return reply
      .header('content-type', EXPORT_MEDIA_TYPES[format])
      .header('content-disposition', `attachment; filename="${exportFileName(store, format)}"`)
      .header('cache-control', 'no-store')
      .send(stream);
  });
}
