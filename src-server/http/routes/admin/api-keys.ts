/** /admin/api/stores/:slug/keys: issue, list, rotate, revoke. The secret is shown once, at creation. */
import type { FastifyInstance } from 'fastify';
import { createApiKey, revokeApiKey, rotateApiKey, toApiKeyView } from '../../../admin/api-keys';
import { keyState } from '../../../auth/api-key-check';
import { createApiKeySchema, rotateApiKeySchema } from '../../../admin/contract';
import type { ApiKeyRecord, Storage, StoreRecord } from '../../../storage/storage';
import { errors } from '../../errors';
import { parseInput } from '../../parse-input';
import { findStoreOr404, type AdminRouteDeps } from './stores';

type KeyParams = { Params: { slug: string; id: string } };

async function findKeyOr404(storage: Storage, store: StoreRecord, id: string): Promise<ApiKeyRecord> {
  const key = await storage.findApiKey(id);
  // A key of another Store is "not found" here: the path scopes what an admin call can touch.
  if (!key || key.storeId !== store.id) throw errors.notFound('key_not_found', `No API key "${id}" in Store "${store.slug}".`);
  return key;
}

export default async function apiKeyRoutes(app: FastifyInstance, deps: AdminRouteDeps): Promise<void> {
  const { storage } = deps;

  app.get<{ Params: { slug: string } }>('/stores/:slug/keys', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const now = new Date();
    return { keys: (await storage.listApiKeys(store.id)).map((key) => toApiKeyView(key, store, now)) };
  });

  app.post<{ Params: { slug: string } }>('/stores/:slug/keys', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const input = parseInput(createApiKeySchema, request.body, 'body');
    if (input.expiresAt !== null && Date.parse(input.expiresAt) <= Date.now()) {
      throw errors.invalidBody('expiresAt must be in the future.', 'expiresAt');
    }
    return reply.code(201).send(await createApiKey(storage, store, input));
  });

  app.get<KeyParams>('/stores/:slug/keys/:id', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    return toApiKeyView(await findKeyOr404(storage, store, request.params.id), store);
  });

  app.delete<KeyParams>('/stores/:slug/keys/:id', async (request) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const key = await findKeyOr404(storage, store, request.params.id);
    return toApiKeyView(await revokeApiKey(storage, key), store);
  });

  app.post<KeyParams>('/stores/:slug/keys/:id/rotate', async (request, reply) => {
    const store = await findStoreOr404(storage, request.params.slug);
    const key = await findKeyOr404(storage, store, request.params.id);
    if (key.revokedAt !== null) throw errors.conflict('key_revoked', 'A revoked key cannot be rotated; create a new key instead.');
    // At most one live replacement: rotating twice would leave two keys content might be moved to.
    const replacement = key.replacedBy === null ? null : await storage.findApiKey(key.replacedBy);
    if (replacement && keyState(replacement, new Date()) === 'active') {
      throw errors.conflict(
        'key_already_rotated',
        `This key was already rotated: its replacement is "${replacement.id}". Rotate or revoke the replacement instead.`,
      );
    }
    const input = parseInput(rotateApiKeySchema, request.body, 'body');
    return reply.code(201).send(await rotateApiKey(storage, store, key, input));
  });
}
