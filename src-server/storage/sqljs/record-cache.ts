/**
 * Stores and API keys as last read. Every xAPI request looks up its key (authentication) and its
 * Store (the slug in the path): a query and a row mapping each, for records that change rarely.
 * The storage forgets them all, synchronously before it applies any change to a Store or a key, so
 * no read after a change is answered from before it; a key's "last used" mark drops that key
 * only. Records are tied to the database they came from: after a failed flush reloads it, the
 * cache starts empty. Records are frozen, since every caller shares them.
 */
import type { ApiKeyRecord, StoreRecord } from '../storage';

const LIMIT = 10_000;

export class RecordCache {
  private source: object | null = null;
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly stores = new Map<string, StoreRecord>();

  /** A key by id; `database` is the loaded database the reads come from. */
  apiKey(database: object, id: string, read: () => ApiKeyRecord | null): ApiKeyRecord | null {
    return this.through(database, this.keys, id, read);
  }

  store(database: object, by: 'id' | 'slug', value: string, read: () => StoreRecord | null): StoreRecord | null {
    return this.through(database, this.stores, `${by}\u0000${value}`, read);
  }

  /** Before any change to a Store or an API key. */
  forget(): void {
    this.keys.clear();
    this.stores.clear();
  }

  /** Before a key's last-used time changes. */
  forgetApiKey(id: string): void {
    this.keys.delete(id);
  }

  private through<T extends object>(database: object, map: Map<string, T>, key: string, read: () => T | null): T | null {
    if (this.source !== database) {
      this.forget();
      this.source = database;
    }
    const known = map.get(key);
    if (known) return known;
    const found = read();
    // Unknown ids are not kept: anyone can ask for any number of them.
    if (found) {
      if (map.size >= LIMIT) map.clear();
      map.set(key, Object.freeze(found));
    }
    return found;
  }
}
