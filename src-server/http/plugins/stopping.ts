/**
 * Requests that arrive while the service stops (on a kept-alive connection, after `close()` has
 * begun) are answered 503 with Retry-After and the connection closed. Fastify can do this by
 * itself (return503OnClosing), but its answer skips every hook, so a browser would see it without
 * CORS headers as "Failed to fetch"; here it goes through the error handler like any refusal.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { LrsError } from '../errors';

/** After CORS (lore-cors): the 503 carries its headers. */
export const stoppingPlugin = fp(stoppingHooks, { name: 'lore-stopping', fastify: '5.x', dependencies: ['lore-cors'] });

async function stoppingHooks(app: FastifyInstance): Promise<void> {
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });
  app.addHook('onRequest', async () => {
    if (stopping) {
      throw new LrsError(503, 'service_stopping', 'The service is stopping; nothing was done. Retry in a few seconds.', {
        headers: { connection: 'close', 'retry-after': '5' },
      });
    }
  });
}
