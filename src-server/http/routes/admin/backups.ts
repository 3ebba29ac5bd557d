/**
 * POST /admin/api/backups: a download of the whole database as an SQLite file, from a consistent
 * point (README.md, "Backups"). `npm run backup` calls it; `npm run restore` puts the file back.
 */
import type { FastifyInstance } from 'fastify';
import { BACKUPS_PATH } from '../../../admin/contract';
import { BackupQueue } from '../../../admin/backups';
import { LrsError } from '../../errors';
import type { AdminRouteDeps } from './stores';

export default async function backupRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  // Registered once per service: its backups wait for each other, another service's do not.
  const backups = new BackupQueue(deps.storage);
  app.post(BACKUPS_PATH, async (_request, reply) => {
    const pending = backups.create();
    if (!pending) throw new LrsError(501, 'backup_not_supported', 'This deployment keeps its data in PostgreSQL, which is backed up with its own tools (pg_dump, point-in-time recovery): see docs/deploy.md, "Backups and recovery".');
    const backup = await pending;
    return reply
      .header('content-type', 'application/vnd.sqlite3')
      .header('content-disposition', `attachment; filename="${backup.fileName}"`)
      .header('cache-control', 'no-store')
      .send(Buffer.from(backup.bytes.buffer, backup.bytes.byteOffset, backup.bytes.byteLength));
  });
}
