/** GET /admin/api/audit: the audit log of admin actions, newest first (admin/audit-log.ts). */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../../../admin/audit-log';
import { auditQuerySchema } from '../../../admin/contract';
import { parseInput } from '../../parse-input';

export default async function auditRoutes(app: FastifyInstance, deps: { audit: AuditLog }): Promise<void> {
  app.get('/audit', async (request) => deps.audit.list(parseInput(auditQuerySchema, request.query, 'query')));
}
