/**
 * What the benchmarks that write without HTTP (storage-micro.ts, write-costs.ts) share: a Store
 * and an API key, and a fresh embedded storage in a temporary directory holding them, with the
 * context recordStatements takes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StatementWriteContext } from '../../src-server/lrs/statement-writes';
import { LiveEventBus } from '../../src-server/admin/live-events';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { ApiKeyRecord, StoreRecord } from '../../src-server/storage/storage';

export const PUBLIC_URL = 'http://127.0.0.1';

/** A test Store named `name` and an API key for it with every scope. */
export function benchStoreAndKey(name: string): { store: StoreRecord; key: ApiKeyRecord } {
  const now = new Date().toISOString();
  const store: StoreRecord = { id: 'store-1', slug: name, name, environment: 'test', createdAt: now, updatedAt: now };
  const key: ApiKeyRecord = {
    id: `lore_test_${name}`, storeId: store.id, name, secretHash: '0'.repeat(64), scopes: ['all'], environment: 'test',
    createdAt: now, lastUsedAt: null, expiresAt: null, revokedAt: null, replacedBy: null,
  };
  return { store, key };
}

/** A fresh storage holding `store` and `key`; `close` closes it and removes its directory. */
export async function openWriteContext({ store, key }: { store: StoreRecord; key: ApiKeyRecord }): Promise<{
  ctx: StatementWriteContext;
  close: () => Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-bench-writes-'));
  const storage = await openSqljsStorage({ dataDir });
  const close = async () => {
    await storage.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await storage.insertStore(store);
    await storage.insertApiKey(key);
  } catch (err) {
    await close();
    throw err;
  }
  return { ctx: { storage, store, key, version: '1.0.3', clock: new StoredClock(), publicUrl: PUBLIC_URL, events: new LiveEventBus(storage) }, close };
}
