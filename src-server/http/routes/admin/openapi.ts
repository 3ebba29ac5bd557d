/**
 * /admin/api/openapi.json: the admin API's OpenAPI description. Registered outside the admin
 * token's scope: the description holds no data, and tools fetch it without credentials.
 */
import type { FastifyInstance } from 'fastify';
import { OPENAPI_PATH } from '../../../admin/contract';
import { buildOpenApiDocument } from '../../../admin/openapi';
import type { PublicUrlOf } from '../../request-origin';
import { SERVICE_VERSION } from '../../service-version';

export default async function openApiRoutes(app: FastifyInstance, options: { publicUrl: PublicUrlOf }): Promise<void> {
  // Built again only when the public URL changes (known once the service listens; without
  // --public-url, the name the request came by): the contract does not change.
  let built: { publicUrl: string; document: Record<string, unknown> } | null = null;
  app.get(OPENAPI_PATH, async (request, reply) => {
    const publicUrl = options.publicUrl(request);
    if (built?.publicUrl !== publicUrl) {
      built = { publicUrl, document: buildOpenApiDocument({ version: SERVICE_VERSION, serverUrl: publicUrl || undefined }) };
    }
    return reply.header('cache-control', 'no-cache').send(built.document);
  });
}
