/** /about (xAPI Part Three §2.8): the versions this LRS speaks. Served without credentials. */
import type { FastifyInstance } from 'fastify';
import { ANNOUNCED_VERSIONS } from '../../../xapi/version';

export default async function aboutRoutes(app: FastifyInstance): Promise<void> {
  app.get('/about', async () => ({ version: [...ANNOUNCED_VERSIONS], extensions: {} }));
}
