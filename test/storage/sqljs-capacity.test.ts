import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { open as openFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_CAPACITY_LIMIT_BYTES, capacityState } from '../../src-server/storage/sqljs/capacity';
import { readWholeFile, writeAll, writeFileDurably } from '../../src-server/storage/sqljs/fs';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { StorageFullError } from '../../src-server/storage/storage';
import type { DocumentKey } from '../../src-server/storage/storage';
import { at, makeApiKey, makeRejection, makeStatement, makeStore } from './rows';
import { instrumentedFs, openIn, removeTempDirs, tempDir, withStore } from './sqljs-helpers';

const opened: SqljsStorage[] = [];
afterEach(async () => {
  for (const storage of opened.splice(0)) await storage.close();
  await removeTempDirs();
});

async function open(options: Parameters<typeof openIn>[1] = {}): Promise<SqljsStorage> {
  const storage = await openIn(await tempDir(), options);
  opened.push(storage);
  return storage;
}

/** A statement of ~16 KB that stays ~16 KB stored: random text, which the compact form (statement-codec.ts) cannot shrink. */
const bigStatement = () => {
  const row = makeStatement();
  return { ...row, statement: { ...row.statement, result: { response: randomBytes(12_000).toString('base64') } } };
};
const key: DocumentKey = { kind: 'state', activityId: 'http://example.com/a', agent: 'mbox:mailto:a@example.com', registration: null, id: 'doc' };

describe('capacity of the in-memory database (sql.js)', () => {
  it('says ok below 80% of the limit, warning from 80%, full from 95%', () => {
    expect(capacityState(79, 100)).toBe('ok');
    expect(capacityState(80, 100)).toBe('warning');
    expect(capacityState(94, 100)).toBe('warning');
    expect(capacityState(95, 100)).toBe('full');
  });

  it('reads a snapshot in chunks, so one over 2 GiB (beyond readFile) opens: every byte, in order', async () => {
    const file = path.join(await tempDir(), 'image');
    const bytes = randomBytes(100_003);
    await writeFile(file, bytes);
    // 4,096-byte chunks stand in for the 256 MiB ones: the same loop, 25 turns and a short last one.
    expect(Buffer.compare(Buffer.from(await readWholeFile(file, 4096)), bytes)).toBe(0);
    expect((await readWholeFile(file)).length).toBe(bytes.length);
  });

  it('writes a snapshot in chunks, so one over 2 GiB (beyond one write call) is written whole', async () => {
    const file = path.join(await tempDir(), 'image');
    const bytes = randomBytes(100_003);
    const handle = await openFile(file, 'w');
    try {
      await writeAll(handle, bytes, 0, 4096);
    } finally {
      await handle.close();
    }
    expect(Buffer.compare(await readFile(file), bytes)).toBe(0);
  });

  it('flushes a large snapshot as it writes it, so the journal never waits behind gigabytes', async () => {
    const { fs, control } = instrumentedFs();
    const file = path.join(await tempDir(), 'image');
    const bytes = Buffer.alloc(130 * 1024 * 1024, 7);
    await writeFileDurably(fs, file, bytes);
    // 64 MiB, 64 MiB and the last 2 MiB: a flush after each of the first two, and the final one.
    expect(control.datasyncs).toBe(3);
    expect((await readWholeFile(file)).length).toBe(bytes.length);
  });

  it('reports the bytes its data takes against a 3 GiB limit by default', async () => {
    const storage = await open();
    const capacity = storage.capacity();
    expect(capacity.limitBytes).toBe(DEFAULT_CAPACITY_LIMIT_BYTES);
    expect(capacity.usedBytes).toBeGreaterThan(0);
    expect(capacity.state).toBe('ok');
    const store = await withStore(storage);
    await storage.insertStatements(store.id, [bigStatement()]);
    expect(storage.capacity().usedBytes).toBeGreaterThan(capacity.usedBytes);
  });

  it('when full, refuses statements, rejections and documents but takes Stores, keys, reads and deletions', async () => {
    const logs: string[] = [];
    const storage = await open({ capacityLimitBytes: 1024 * 1024, log: (msg) => logs.push(msg) });
    const store = await withStore(storage);
    const stored: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 200 && !refusal; i++) {
      const row = bigStatement();
      try {
        await storage.insertStatements(store.id, [row]);
        stored.push(row.statementId);
      } catch (err) {
        refusal = err;
      }
    }
    expect(refusal).toBeInstanceOf(StorageFullError);
    expect((refusal as Error).message).toMatch(/database is full .*nothing was stored.*PostgreSQL.*npm run migrate -- --from <data-dir> --to postgres:/s);
    expect(storage.capacity().state).toBe('full');
    expect(logs.filter((line) => /database capacity warning/.test(line))).toHaveLength(1);
    expect(logs.filter((line) => /database full/.test(line))).toHaveLength(1);

    const countBefore = (await storage.stats(store.id)).statements;
    await expect(storage.insertRejections(store.id, [makeRejection()])).rejects.toThrow(StorageFullError);
    await expect(storage.upsertDocument(store.id, key, { contentType: 'text/plain', content: new Uint8Array(10), etag: 'e', updated: at(1) }, null)).rejects.toThrow(
      StorageFullError,
    );
    expect((await storage.stats(store.id)).statements).toBe(countBefore);
    expect(await storage.findStatement(store.id, stored[0]!)).not.toBeNull();
    // An unchanged statement adds nothing: still answered.
    expect(await storage.insertStatements(store.id, [{ ...bigStatement(), statementId: stored[0]! }])).toEqual({ ok: true, inserted: [], unchanged: [stored[0]] });

    const other = makeStore();
    await storage.insertStore(other);
    await storage.insertApiKey(makeApiKey(other.id));
    await storage.emptyStore(store.id);
    expect(storage.capacity().state).toBe('ok');
    await storage.insertStatements(store.id, [bigStatement()]);
    expect(logs.some((line) => /capacity back to normal/.test(line))).toBe(true);
  });
});
