/**
 * The Storage contract on PostgreSQL (a real server: test/postgres/test-server.ts), each test on
 * a database of its own. "Reopen" is a new storage on the same database (as a restarted or
 * second service process would see it); holding durability holds each write before its COMMIT.
 */
import { openPostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import type { PostgresStorage } from '../../src-server/storage/postgres/postgres-storage';
import { createTestDatabase } from '../postgres/test-database';
import { describeStorageContract } from './storage-contract';
import type { ContractSubject } from './storage-contract';

async function openOnNewDatabase(): Promise<ContractSubject> {
  const database = await createTestDatabase();
  let held: Promise<void> | null = null;
  const beforeCommit = async () => {
    if (held) await held;
  };
  const open = () => openPostgresStorage({ url: database.url, poolSize: 4, beforeCommit });
  const opened: PostgresStorage[] = [await open()];
  return {
    storage: opened[0]!,
    reopen: async () => {
      await opened[opened.length - 1]!.close();
      const next = await open();
      opened.push(next);
      return next;
    },
    cleanup: async () => {
      for (const storage of opened) await storage.close();
      await database.drop();
    },
    holdDurability: () => {
      let release!: () => void;
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
  };
}

describeStorageContract('PostgreSQL', openOnNewDatabase);
