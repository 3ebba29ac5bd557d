/**
 * Writes that race: another write lands between the read a request decided on and its own write.
 * The storage refuses the stale write (ifCurrent), and the operation decides again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readDocument, writeDocument, type DocumentContext } from '../../src-server/lrs/documents';
import { StoredClock } from '../../src-server/lrs/stored-clock';
import { openSqljsStorage, type SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { DocumentKey, Storage } from '../../src-server/storage/storage';
import { documentEtag, parsePreconditions, quoteEtag } from '../../src-server/xapi/documents';
import { makeStore } from '../storage/rows';

const KEY: DocumentKey = { kind: 'activityProfile', activityId: 'http://example.com/a', agent: null, registration: null, id: 'p' };
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

let dir: string;
let storage: SqljsStorage;
let ctx: DocumentContext;

/** A Storage whose next upsertDocument first lets `interloper` write. */
function racing(interloper: () => Promise<unknown>): Storage {
  let raced = false;
  return new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'upsertDocument' && !raced) {
        return async (...args: Parameters<Storage['upsertDocument']>) => {
          raced = true;
          await interloper();
          return target.upsertDocument(...args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lore-docs-'));
  storage = await openSqljsStorage({ dataDir: dir });
  const store = makeStore();
  await storage.insertStore(store);
  ctx = { storage, store, version: '2.0.0', clock: new StoredClock(), keyId: 'lore_test_key' };
});

afterEach(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = (context: DocumentContext, value: unknown, headers: { ifMatch?: string } = {}) =>
  writeDocument(context, KEY, { method: 'POST', body: encode(value), contentType: 'application/json', preconditions: parsePreconditions(headers) });

describe('document writes that race', () => {
  it('merges a POST into the document another write stored meanwhile, losing neither', async () => {
    await post(ctx, { a: 1 });
    const raced = { ...ctx, storage: racing(() => post(ctx, { b: 2 })) };
    expect(await post(raced, { c: 3 })).toMatchObject({ ok: true });
    const stored = await readDocument(ctx, KEY);
    expect(stored.ok && JSON.parse(new TextDecoder().decode(stored.value.content))).toEqual({ a: 1, b: 2, c: 3 });
  });

  it('answers 412 to an If-Match write when another write changed the document after it was checked', async () => {
    await post(ctx, { a: 1 });
    const etag = quoteEtag(documentEtag(encode({ a: 1 })));
    const raced = { ...ctx, storage: racing(() => post(ctx, { b: 2 })) };
    expect(await post(raced, { c: 3 }, { ifMatch: etag })).toMatchObject({ ok: false, failure: { status: 412 } });
    const stored = await readDocument(ctx, KEY);
    expect(stored.ok && JSON.parse(new TextDecoder().decode(stored.value.content))).toEqual({ a: 1, b: 2 });
  });
});
