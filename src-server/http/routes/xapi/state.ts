/** /activities/state (xAPI 1.0.3 Part Three §2.3; 2.0.0 §4.1.6.2): one agent's documents in one activity. */
import type { FastifyInstance } from 'fastify';
import { registerDocumentResource, type DocumentRouteDeps } from './document-resource';

export default async function stateRoutes(app: FastifyInstance, deps: DocumentRouteDeps): Promise<void> {
  registerDocumentResource(app, deps, 'state', '/activities/state');
}
