/** /activities/profile (xAPI 1.0.3 Part Three §2.7; 2.0.0 §4.1.6.6): documents about an activity. */
import type { FastifyInstance } from 'fastify';
import { registerDocumentResource, type DocumentRouteDeps } from './document-resource';

export default async function activityProfileRoutes(app: FastifyInstance, deps: DocumentRouteDeps): Promise<void> {
  registerDocumentResource(app, deps, 'activityProfile', '/activities/profile');
}
