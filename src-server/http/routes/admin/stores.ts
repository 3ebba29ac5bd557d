/** /admin/api/stores: create, list, read, rename, delete. */
import type { FastifyInstance } from 'fastify';
import { createStoreSchema, deleteStoreSchema, updateStoreSchema } from '../../../admin/contract';
import { storeSummary } from '../../../admin/store-actions';
import { createStore, deleteStore, toStoreView, updateStore } from '../../../admin/stores';
import type { Storage, StoreRecord } from '../../../storage/storage';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import type { PublicUrlOf } from '../../request-origin';

export interface AdminRouteDeps {
  storage: Storage;
  /** The base of the URLs in an answer (request-origin.ts). */
  publicUrl: PublicUrlOf;
}

export async function findStoreOr404(storage: Storage, slug: string): Promise<StoreRecord> {
  const store = await storage.findStoreBySlug(slug);
  if (!store) throw errors.storeNotFound(slug);
  return store;
}

export default async function storeRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  const { storage, publicUrl } = deps;

  // With each Store's counts and last activity (the Stores screen's list).
  app.get('/stores', async (request) => ({
    stores: await Promise.all((await storage.listStores()).map((store) => storeSummary(storage, store, publicUrl(request)))),
  }));

  app.post('/stores', async (request, reply) => {
    const input = parseInput(createStoreSchema, request.body, 'body');
    const created = await createStore(storage, input);
    if (!created.ok) throw errors.conflict('slug_taken', `A Store with the slug "${input.slug}" already exists.`, { field: 'slug' });
    return reply.code(201).send(toStoreView(created.value, publicUrl(request)));
  });

  app.get<{ Params: { slug: string } }>('/stores/:slug', async (request) =>
    toStoreView(await findStoreOr404(storage, request.params.slug), publicUrl(request)),
  );

  app.patch<{ Params: { slug: string } }>('/stores/:slug', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const input = parseInput(updateStoreSchema, request.body, 'body');
    return toStoreView(await updateStore(storage, store, input), publicUrl(request));
  });

  app.delete<{ Params: { slug: string }; Querystring: { confirm?: string } }>('/stores/:slug', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const body = request.body === undefined || request.body === null ? {} : parseInput(deleteStoreSchema, request.body, 'body');
    const confirmation = request.query.confirm ?? body.confirm;
    const deleted = await deleteStore(storage, store, confirmation);
    if (!deleted.ok) {
      throw errors.badRequest(
        'confirmation_required',
        `"${store.slug}" is a live Store: type its slug back to delete it (?confirm=${store.slug}).`,
        'confirm',
      );
    }
    return reply.code(204).send();
  });
}
