/**
 * POST /admin/api/backups: a download of the whole database as a checked SQLite file, from a
 * consistent point (README.md, "Backups"; admin/backups.ts). `npm run backup` calls it; `npm run
 * restore` puts the file back.
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { BACKUPS_PATH } from '../../../admin/contract';
import { BackupQueue } from '../../../admin/backups';
import { LrsError } from '../../errors';
import type { AdminRouteDeps } from './stores';

export default async function backupRoutes(app: FastifyInstance, deps: AdminRouteDeps & { dir: string }): Promise<void> {
  // Registered once per service: its backups wait for each other, another service's do not.
  const backups = new BackupQueue(deps.storage, deps.dir);
  app.post(BACKUPS_PATH, async (_request, reply) => {
    const pending = backups.create();
    if (!pending) throw new LrsError(501, 'backup_not_supported', 'This deployment keeps its data in PostgreSQL, which is backed up with its own tools (pg_dump, point-in-time recovery): see docs/deploy.md, "Backups and recovery".');
    const backup = await pending;
    const stream = createReadStream(backup.file);
    // Removed once sent or abandoned; the open stream reads on from the removed file until then.
    stream.once('close', () => void backup.remove());
    return reply
      .header('content-type', 'application/vnd.sqlite3')
      .header('content-disposition', `attachment; filename="${backup.fileName}"`)
      .header('content-length', backup.summary.bytes)
      .header('cache-control', 'no-store')
      .send(stream);
  });
}
