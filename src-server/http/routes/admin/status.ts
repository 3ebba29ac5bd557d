/** /admin/api/status: what the console shows about the service it manages. */
import type { FastifyInstance } from 'fastify';
import { SERVICE_VERSION } from '../../../service-version';
import type { AdminRouteDeps } from './stores';

export default async function statusRoutes(app: FastifyInstance, deps: AdminRouteDeps & { startedAt: string }): Promise<void> {
  app.get('/status', async () => {
    const [stores, stats] = await Promise.all([deps.storage.listStores(), deps.storage.stats()]);
    return {
      version: SERVICE_VERSION,
      startedAt: deps.startedAt,
      stores: stores.length,
      statements: stats.statements,
      rejections: stats.rejections,
      databaseBytes: stats.databaseBytes,
    };
  });
}
