/** /admin/api/status: what the console shows about the service it manages (the Connection screen). */
import type { FastifyInstance } from 'fastify';
import type { BackupScheduleView, ServiceStatusView } from '../../../admin/contract';
import { SERVICE_VERSION } from '../../service-version';
import type { AdminRouteDeps } from './stores';

/** Where the service runs; known to whoever started it (service.ts), once it listens. */
export type ServiceInfo = Pick<ServiceStatusView, 'listenUrl' | 'host' | 'port' | 'dataDir'>;

export default async function statusRoutes(
  app: FastifyInstance,
  deps: AdminRouteDeps & { startedAt: string; serviceInfo?: () => ServiceInfo; backups?: () => BackupScheduleView | undefined; liveStreams?: () => number },
): Promise<void> {
  app.get('/status', async (request): Promise<ServiceStatusView> => {
    const [stores, stats] = await Promise.all([deps.storage.listStores(), deps.storage.stats()]);
    const publicUrl = deps.publicUrl(request);
    const backups = deps.backups?.();
    return {
      version: SERVICE_VERSION,
      startedAt: deps.startedAt,
      stores: stores.length,
      statements: stats.statements,
      rejections: stats.rejections,
      databaseBytes: stats.databaseBytes,
      ...deps.serviceInfo?.(),
      ...(deps.storage.capacity ? { capacity: deps.storage.capacity() } : {}),
      ...(publicUrl ? { publicUrl } : {}),
      ...(backups ? { backups } : {}),
      ...(deps.storage.damage ? { damage: deps.storage.damage() } : {}),
      ...(deps.liveStreams ? { liveStreams: deps.liveStreams() } : {}),
    };
  });
}
