/** /agents/profile (xAPI 1.0.3 Part Three §2.6; 2.0.0 §4.1.6.5): documents about an agent. */
import type { FastifyInstance } from 'fastify';
import { registerDocumentResource, type DocumentRouteDeps } from './document-resource';

export default async function agentProfileRoutes(app: FastifyInstance, deps: DocumentRouteDeps): Promise<void> {
  registerDocumentResource(app, deps, 'agentProfile', '/agents/profile');
}
