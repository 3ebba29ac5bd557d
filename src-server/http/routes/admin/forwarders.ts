/**
 * /admin/api/stores/:slug/forwarders: the Store's forwarders (docs/forwarding.md), their status,
 * pause and resume, delete, and their dead letters with redelivery. Thin over admin/forwarders.ts.
 */
import type { FastifyInstance } from 'fastify';
import { createForwarderSchema, redeliverSchema, updateForwarderSchema } from '../../../admin/contract';
import {
  createForwarder,
  deleteForwarder,
  findStoreForwarder,
  redeliver,
  setForwarderPaused,
  toDeadLetterView,
  toForwarderView,
  type ForwarderDeps,
} from '../../../admin/forwarders';
import type { ForwarderRecord } from '../../../storage/forwarders';
import type { StoreRecord } from '../../../storage/storage';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404 } from './stores';

type Params = { Params: { slug: string; id: string } };

export default async function forwarderRoutes(app: FastifyInstance, deps: ForwarderDeps): Promise<void> {
  const { storage } = deps;

  async function findOr404(slug: string, id: string): Promise<{ store: StoreRecord; record: ForwarderRecord }> {
    const store = await findStoreOr404(storage, slug);
    const record = await findStoreForwarder(storage, store, id);
    if (!record) throw errors.notFound('forwarder_not_found', `The Store "${slug}" has no forwarder "${id}".`);
    return { store, record };
  }

  app.get<{ Params: { slug: string } }>('/stores/:slug/forwarders', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const records = await storage.listForwarders(store.id);
    return { forwarders: await Promise.all(records.map((record) => toForwarderView(storage, record))) };
  });

  app.post<{ Params: { slug: string } }>('/stores/:slug/forwarders', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const input = parseInput(createForwarderSchema, request.body, 'body');
    const record = await createForwarder(deps, store, input);
    return reply.code(201).send(await toForwarderView(storage, record));
  });

  app.get<Params>('/stores/:slug/forwarders/:id', async (request) => {
    const { record } = await findOr404(request.params.slug, request.params.id);
    return toForwarderView(storage, record);
  });

  app.patch<Params>('/stores/:slug/forwarders/:id', async (request) => {
    const { store, record } = await findOr404(request.params.slug, request.params.id);
    const input = parseInput(updateForwarderSchema, request.body, 'body');
    return toForwarderView(storage, await setForwarderPaused(deps, store, record, input.paused));
  });

  app.delete<Params>('/stores/:slug/forwarders/:id', async (request, reply) => {
    const { store, record } = await findOr404(request.params.slug, request.params.id);
    await deleteForwarder(deps, store, record);
    return reply.code(204).send();
  });

  app.get<Params>('/stores/:slug/forwarders/:id/dead-letters', async (request) => {
    const { record } = await findOr404(request.params.slug, request.params.id);
    return { deadLetters: (await storage.listDeadLetters(record.id)).map(toDeadLetterView) };
  });

  app.post<Params>('/stores/:slug/forwarders/:id/redeliver', async (request) => {
    const { store, record } = await findOr404(request.params.slug, request.params.id);
    const input = parseInput(redeliverSchema, request.body, 'body');
    return { queued: await redeliver(deps, store, record, input.ids) };
  });
}
