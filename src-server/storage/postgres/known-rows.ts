/**
 * What this process last saw of the Activity definitions and Explorer names of each Store: the
 * fast write path (statement-fast-writes.ts) takes them as kept, and lore_insert_statements checks
 * that they still are, so a write that changes none of them needs no read of its own before it.
 * Only a hint: a wrong entry costs the write a second try through the general path, never a wrong
 * row. Bounded: when full it starts over.
 */
const MAX_ENTRIES = 100_000;

export class KnownRows {
  private readonly entries = new Map<string, string>();

  static activityKey(storeId: string, activityId: string): string {
    return `a\u0000${storeId}\u0000${activityId}`;
  }

  static nameKey(storeId: string, kind: string, value: string): string {
    return `n\u0000${storeId}\u0000${kind}\u0000${value}`;
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: string): void {
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(key)) this.entries.clear();
    this.entries.set(key, value);
  }

  forget(keys: Iterable<string>): void {
    for (const key of keys) this.entries.delete(key);
  }
}
