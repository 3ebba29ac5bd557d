/** Guards /admin/api: `Authorization: Bearer <admin token>`, compared in constant time. */
import type { FastifyInstance } from 'fastify';
import type { AdminTokenCheck } from '../../admin/admin-token';
import { errors } from '../errors';

export function registerAdminAuth(app: FastifyInstance, adminToken: AdminTokenCheck): void {
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw errors.adminUnauthenticated('The admin API needs "Authorization: Bearer <admin token>".');
    if (!adminToken.matches(match[1]!)) throw errors.adminUnauthenticated('The admin token is not valid.');
  });
}
