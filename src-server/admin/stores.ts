/** Stores: create, list, rename, delete. Plain functions over Storage. */
import { randomUUID } from 'node:crypto';
import type { Storage, StoreRecord } from '../storage/storage';
import { applyStoreLimitsPatch } from '../limits/service-limits';
import { applyStoreRetentionPatch, DEFAULT_STORE_RETENTION } from '../limits/store-retention';
import type { CreateStoreInput, StoreView, UpdateStoreInput } from './contract';

export type StoreResult<T> = { ok: true; value: T } | { ok: false; code: 'slug_taken' | 'confirmation_required' };

export function toStoreView(store: StoreRecord, publicUrl: string): StoreView {
  return { ...store, endpoint: `${publicUrl.replace(/\/$/, '')}/${store.slug}/xAPI/`, limits: store.limits ?? {}, retention: store.retention ?? DEFAULT_STORE_RETENTION };
}

export async function createStore(
  storage: Storage,
  input: CreateStoreInput,
  now = new Date(),
): Promise<StoreResult<StoreRecord>> {
  if (await storage.findStoreBySlug(input.slug)) return { ok: false, code: 'slug_taken' };
  const at = now.toISOString();
  const store: StoreRecord = {
    id: randomUUID(),
    slug: input.slug,
    name: input.name,
    environment: input.environment,
    createdAt: at,
    updatedAt: at,
  };
  await storage.insertStore(store);
  return { ok: true, value: store };
}

/**
 * PATCH: a new name, changes to the Store's own limits (a number sets one, null returns it to the
 * service's) and to its retention (days per kind; null: the default).
 */
export async function updateStore(storage: Storage, store: StoreRecord, input: UpdateStoreInput, now = new Date()): Promise<StoreRecord> {
  const patch: Partial<Pick<StoreRecord, 'name' | 'updatedAt' | 'limits' | 'retention'>> = { updatedAt: now.toISOString() };
  if (input.name !== undefined) patch.name = input.name;
  if (input.limits !== undefined) patch.limits = applyStoreLimitsPatch(store.limits, input.limits);
  if (input.retention !== undefined) patch.retention = applyStoreRetentionPatch(store.retention, input.retention);
  await storage.updateStore(store.id, patch);
  return { ...store, ...patch };
}

/** A live Store holds production data: deleting it needs its slug typed back. */
export async function deleteStore(
  storage: Storage,
  store: StoreRecord,
  confirmation: string | undefined,
): Promise<StoreResult<null>> {
  if (store.environment === 'live' && confirmation !== store.slug) return { ok: false, code: 'confirmation_required' };
  await storage.deleteStore(store.id);
  return { ok: true, value: null };
}
