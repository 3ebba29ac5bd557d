/**
 * Builds the Fastify app without listening, so tests use `app.inject` and main.ts only boots it.
 *
 *   /<slug>/xAPI/...   xAPI for one Store ("xapi" in any case)
 *   /xapi/...          the earlier address: the Store is the key's
 *   /admin/api/...     the admin API (admin token)
 *   /health            liveness, no credentials
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { AdminTokenCheck } from '../admin/admin-token';
import { StoredClock } from '../lrs/stored-clock';
import type { Storage } from '../storage/storage';
import { registerAdminAuth } from './plugins/admin-auth';
import { registerErrorHandling } from './plugins/error-handler';
import { registerXapiContext } from './plugins/xapi-context';
import apiKeyRoutes from './routes/admin/api-keys';
import explorerRoutes from './routes/admin/statements';
import statusRoutes from './routes/admin/status';
import storeRoutes from './routes/admin/stores';
import aboutRoutes from './routes/xapi/about';
import statementRoutes from './routes/xapi/statements';

export interface ServerOptions {
  storage: Storage;
  adminToken: AdminTokenCheck;
  /**
   * Base URL content reaches the service at; shown in Store endpoints and statement authorities.
   * A function: with `--port 0` it is known only once the server listens.
   */
  publicUrl: () => string;
  bodyLimitBytes?: number;
  logger?: FastifyServerOptions['logger'];
}

/** Default request body limit: far above any real statement batch, far below memory trouble. */
export const DEFAULT_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

/** `/demo/XaPi/statements` → `/demo/xapi/statements`; `/XAPI/about` → `/xapi/about`. */
export function normaliseXapiSegment(url: string): string {
  return url.replace(/^(\/[^/?]+)?\/xapi(?=\/|\?|$)/i, (_match, slug: string | undefined) => `${slug ?? ''}/xapi`);
}

export function buildServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    rewriteUrl: (request) => normaliseXapiSegment(request.url ?? '/'),
    // Statement ids and parameters are case-sensitive, but routes are matched on the rewritten URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    return503OnClosing: true,
  });
  registerErrorHandling(app);

  const clock = new StoredClock();
  const startedAt = new Date().toISOString();
  const adminDeps = { storage: options.storage, publicUrl: options.publicUrl };

  const xapi = async (scope: FastifyInstance) => {
    registerXapiContext(scope, options.storage, { publicRoutes: ['/about'] });
    await scope.register(aboutRoutes);
    await scope.register(statementRoutes, { storage: options.storage, clock, publicUrl: options.publicUrl });
  };
  app.register(xapi, { prefix: '/:slug/xapi' });
  app.register(xapi, { prefix: '/xapi' });

  app.register(
    async (admin) => {
      registerAdminAuth(admin, options.adminToken);
      await admin.register(statusRoutes, { ...adminDeps, startedAt });
      await admin.register(storeRoutes, adminDeps);
      await admin.register(apiKeyRoutes, adminDeps);
      await admin.register(explorerRoutes, adminDeps);
    },
    { prefix: '/admin/api' },
  );

  app.get('/health', async () => ({ status: 'ok' }));
  return app;
}
