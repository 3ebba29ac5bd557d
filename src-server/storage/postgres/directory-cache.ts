/**
 * Stores and API keys as last read, for the lookups every request makes (its Store by slug, its
 * key by id): two round trips saved per request. Kept only while the change feed listens
 * (change-feed.ts): a write of Stores or keys by any process sends a `directory` notification in
 * its transaction, and every process forgets what it kept when it hears one, or when it loses the
 * feed (it might miss one). So a key revoked through one process is refused by the others as soon
 * as the notification arrives, well within a second. Entries also expire after TTL_MS, a bound
 * that does not depend on the feed. Bounded in size: it starts over when full.
 */
import type { ApiKeyRecord, StoreRecord } from '../storage';

const TTL_MS = 30_000;
const LIMIT = 10_000;

interface Entry<T> {
  value: T;
  at: number;
}

export class DirectoryCache {
  private readonly stores = new Map<string, Entry<(StoreRecord & { num: number }) | null>>();
  private readonly keys = new Map<string, Entry<ApiKeyRecord | null>>();
  /** Bumped by every clear: a read that started before it must not fill the cache after it. */
  private generation = 0;

  constructor(private readonly enabled: () => boolean) {}

  async store(by: 'id' | 'slug', value: string, read: () => Promise<(StoreRecord & { num: number }) | null>): Promise<(StoreRecord & { num: number }) | null> {
    return this.cached(this.stores, `${by}\u0000${value}`, read);
  }

  async apiKey(id: string, read: () => Promise<ApiKeyRecord | null>): Promise<ApiKeyRecord | null> {
    return this.cached(this.keys, id, read);
  }

  clear(): void {
    this.generation++;
    this.stores.clear();
    this.keys.clear();
  }

  private async cached<T>(map: Map<string, Entry<T>>, key: string, read: () => Promise<T>): Promise<T> {
    const now = Date.now();
    const hit = map.get(key);
    if (hit && now - hit.at < TTL_MS && this.enabled()) return hit.value;
    const generation = this.generation;
    const value = await read();
    if (this.enabled() && generation === this.generation) {
      if (map.size >= LIMIT) map.clear();
      map.set(key, { value, at: now });
    }
    return value;
  }
}
