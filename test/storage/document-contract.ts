/**
 * The documents part of the Storage contract (State, Activity Profile, Agent Profile), run by
 * describeStorageContract for every implementation. Storage keeps bytes, content types and the
 * etags it is handed; it never interprets a document.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentContent, DocumentKey } from '../../src-server/storage/storage';
import { ALICE, BOB, at, makeStore } from './rows';
import type { ContractContext } from './storage-contract';

const ACTIVITY = 'http://example.com/course/1';
const OTHER_ACTIVITY = 'http://example.com/course/2';
const REGISTRATION = '5f1a0c3e-8b7d-4e2a-9c1f-0a2b3c4d5e6f';
const OTHER_REGISTRATION = '0b8e2c1d-3f4a-4b5c-8d6e-7f8091a2b3c4';

function stateKey(id: string, overrides: Partial<DocumentKey> = {}): DocumentKey {
  return { kind: 'state', activityId: ACTIVITY, agent: ALICE, registration: null, id, ...overrides };
}

function content(text: string, updatedAt = 1, contentType = 'application/json'): DocumentContent {
  return { contentType, content: new TextEncoder().encode(text), etag: `etag-of-${text}`, updated: at(updatedAt) };
}

export function describeDocumentContract(ctx: ContractContext): void {
  describe('documents', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;

    it('stores a document and finds it by its full key, bytes, content type, etag and time unchanged', async () => {
      expect(await s().upsertDocument(storeId(), stateKey('bookmark'), content('{"page":3}', 5), null)).toBe(true);
      const found = await s().findDocument(storeId(), stateKey('bookmark'));
      expect(found).toEqual({ id: 'bookmark', ...content('{"page":3}', 5) });
      expect(await s().findDocument(storeId(), stateKey('bookmark', { agent: BOB }))).toBeNull();
      expect(await s().findDocument(storeId(), stateKey('bookmark', { registration: REGISTRATION }))).toBeNull();
      expect(await s().findDocument(storeId(), { ...stateKey('bookmark'), kind: 'activityProfile' })).toBeNull();
    });

    it('keeps binary content byte for byte, and an empty document as empty', async () => {
      const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x00, 0x01]);
      await s().upsertDocument(storeId(), stateKey('image'), { contentType: 'image/png', content: bytes, etag: 'e1', updated: at(1) }, null);
      await s().upsertDocument(storeId(), stateKey('empty'), { contentType: 'text/plain', content: new Uint8Array(), etag: 'e2', updated: at(1) }, null);
      expect(Array.from((await s().findDocument(storeId(), stateKey('image')))!.content)).toEqual(Array.from(bytes));
      expect((await s().findDocument(storeId(), stateKey('empty')))!.content).toHaveLength(0);
    });

    it('replaces a document only while the caller has seen its current etag', async () => {
      await s().upsertDocument(storeId(), stateKey('x'), content('1'), null);
      // A caller that saw no document (null) or an older one must not overwrite.
      expect(await s().upsertDocument(storeId(), stateKey('x'), content('2'), null)).toBe(false);
      expect(await s().upsertDocument(storeId(), stateKey('x'), content('2'), 'etag-of-0')).toBe(false);
      expect((await s().findDocument(storeId(), stateKey('x')))!.etag).toBe('etag-of-1');
      expect(await s().upsertDocument(storeId(), stateKey('x'), content('2', 9), 'etag-of-1')).toBe(true);
      expect(await s().findDocument(storeId(), stateKey('x'))).toMatchObject({ etag: 'etag-of-2', updated: at(9) });
      // And a caller that saw one cannot write once it is gone.
      await s().deleteDocument(storeId(), stateKey('x'));
      expect(await s().upsertDocument(storeId(), stateKey('x'), content('3'), 'etag-of-2')).toBe(false);
    });

    it('lists the ids of a set in id order, by registration or across them, and after a time', async () => {
      await s().upsertDocument(storeId(), stateKey('b'), content('b', 10), null);
      await s().upsertDocument(storeId(), stateKey('a', { registration: REGISTRATION }), content('a', 20), null);
      await s().upsertDocument(storeId(), stateKey('b', { registration: OTHER_REGISTRATION }), content('b2', 30), null);
      await s().upsertDocument(storeId(), stateKey('c', { activityId: OTHER_ACTIVITY }), content('c', 30), null);
      const set = { kind: 'state' as const, activityId: ACTIVITY, agent: ALICE };
      expect(await s().listDocumentIds(storeId(), set)).toEqual(['a', 'b']);
      expect(await s().listDocumentIds(storeId(), { ...set, registration: REGISTRATION })).toEqual(['a']);
      expect(await s().listDocumentIds(storeId(), { ...set, registration: null })).toEqual(['b']);
      expect(await s().listDocumentIds(storeId(), { ...set, since: at(10) })).toEqual(['a', 'b']);
      expect(await s().listDocumentIds(storeId(), { ...set, since: at(20) })).toEqual(['b']);
      expect(await s().listDocumentIds(storeId(), { ...set, since: at(30) })).toEqual([]);
    });

    it('deletes one document, honouring ifCurrent, and a whole set', async () => {
      await s().upsertDocument(storeId(), stateKey('a'), content('a'), null);
      await s().upsertDocument(storeId(), stateKey('b', { registration: REGISTRATION }), content('b'), null);
      await s().upsertDocument(storeId(), stateKey('c', { agent: BOB }), content('c'), null);
      expect(await s().deleteDocument(storeId(), stateKey('a'), 'etag-of-old')).toBe(false);
      expect(await s().deleteDocument(storeId(), stateKey('a'), 'etag-of-a')).toBe(true);
      expect(await s().deleteDocument(storeId(), stateKey('a'))).toBe(false);
      await s().upsertDocument(storeId(), stateKey('a'), content('a'), null);
      expect(await s().deleteDocuments(storeId(), { kind: 'state', activityId: ACTIVITY, agent: ALICE })).toBe(2);
      expect(await s().deleteDocuments(storeId(), { kind: 'state', activityId: ACTIVITY, agent: ALICE })).toBe(0);
      expect(await s().findDocument(storeId(), stateKey('c', { agent: BOB }))).not.toBeNull();
    });

    it('refuses a write or a deletion of a document in a Store that does not exist, as no Store', async () => {
      const missing = 'a-store-that-does-not-exist';
      const noStore = { name: 'StorageNotFoundError', code: 'store_not_found' };
      await expect(s().upsertDocument(missing, stateKey('a'), content('a'), null)).rejects.toMatchObject(noStore);
      await expect(s().upsertDocument(missing, stateKey('a'), content('a'), 'etag-of-old')).rejects.toMatchObject(noStore);
      await expect(s().deleteDocument(missing, stateKey('a'))).rejects.toMatchObject(noStore);
      await expect(s().deleteDocument(missing, stateKey('a'), 'etag-of-old')).rejects.toMatchObject(noStore);
    });

    it('keys profiles by activity alone and by agent alone', async () => {
      const activityProfile: DocumentKey = { kind: 'activityProfile', activityId: ACTIVITY, agent: null, registration: null, id: 'p' };
      const agentProfile: DocumentKey = { kind: 'agentProfile', activityId: null, agent: ALICE, registration: null, id: 'p' };
      await s().upsertDocument(storeId(), activityProfile, content('activity'), null);
      await s().upsertDocument(storeId(), agentProfile, content('agent'), null);
      expect((await s().findDocument(storeId(), activityProfile))!.etag).toBe('etag-of-activity');
      expect((await s().findDocument(storeId(), agentProfile))!.etag).toBe('etag-of-agent');
      expect(await s().listDocumentIds(storeId(), { kind: 'agentProfile', activityId: null, agent: ALICE })).toEqual(['p']);
      expect(await s().listDocumentIds(storeId(), { kind: 'agentProfile', activityId: null, agent: BOB })).toEqual([]);
    });

    it('keeps the documents of two Stores apart, and deletes them with their Store', async () => {
      const other = makeStore();
      await s().insertStore(other);
      await s().upsertDocument(storeId(), stateKey('same'), content('mine'), null);
      await s().upsertDocument(other.id, stateKey('same'), content('theirs'), null);
      expect((await s().findDocument(storeId(), stateKey('same')))!.etag).toBe('etag-of-mine');
      expect((await s().findDocument(other.id, stateKey('same')))!.etag).toBe('etag-of-theirs');
      await s().deleteDocuments(other.id, { kind: 'state', activityId: ACTIVITY, agent: ALICE });
      expect(await s().findDocument(storeId(), stateKey('same'))).not.toBeNull();
      await s().upsertDocument(other.id, stateKey('same'), content('theirs'), null);
      await s().deleteStore(other.id);
      await s().insertStore(other);
      expect(await s().findDocument(other.id, stateKey('same'))).toBeNull();
      expect(await s().findDocument('no-such-store', stateKey('same'))).toBeNull();
      expect(await s().listDocumentIds('no-such-store', { kind: 'state', activityId: ACTIVITY, agent: ALICE })).toEqual([]);
      await expect(s().upsertDocument('no-such-store', stateKey('x'), content('x'), null)).rejects.toMatchObject({
        code: 'store_not_found',
      });
    });

    it('keeps documents, replacements and deletions across reopening', async () => {
      const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
      await s().upsertDocument(storeId(), stateKey('kept'), { contentType: 'application/octet-stream', content: bytes, etag: 'k', updated: at(3) }, null);
      await s().upsertDocument(storeId(), stateKey('replaced'), content('old'), null);
      await s().upsertDocument(storeId(), stateKey('replaced'), content('new', 4), 'etag-of-old');
      await s().upsertDocument(storeId(), stateKey('deleted'), content('gone'), null);
      await s().deleteDocument(storeId(), stateKey('deleted'));
      await s().upsertDocument(storeId(), stateKey('in-set', { activityId: OTHER_ACTIVITY }), content('set'), null);
      await s().deleteDocuments(storeId(), { kind: 'state', activityId: OTHER_ACTIVITY, agent: ALICE });

      await ctx.reopen();

      expect(await s().findDocument(storeId(), stateKey('kept'))).toEqual({
        id: 'kept',
        contentType: 'application/octet-stream',
        content: bytes,
        etag: 'k',
        updated: at(3),
      });
      expect(await s().findDocument(storeId(), stateKey('replaced'))).toMatchObject({ etag: 'etag-of-new', updated: at(4) });
      expect(await s().listDocumentIds(storeId(), { kind: 'state', activityId: ACTIVITY, agent: ALICE })).toEqual(['kept', 'replaced']);
      expect(await s().listDocumentIds(storeId(), { kind: 'state', activityId: OTHER_ACTIVITY, agent: ALICE })).toEqual([]);
    });
  });
}
