/** Guards /admin/api: `Authorization: Bearer <admin token>`, compared in constant time. */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { AdminTokenCheck } from '../../admin/admin-token';
import { errors } from '../errors';

export const adminAuthPlugin = fp(adminAuth, { name: 'lore-admin-auth', fastify: '5.x' });

async function adminAuth(app: FastifyInstance, { adminToken }: { adminToken: AdminTokenCheck }): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw errors.adminUnauthenticated('The admin API needs "Authorization: Bearer <admin token>".');
    if (!adminToken.matches(match[1]!)) throw errors.adminUnauthenticated('The admin token is not valid.');
  });
}
