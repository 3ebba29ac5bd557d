/**
 * The Test Bench's part of the Storage contract (packages, their files, launches), run by
 * describeStorageContract for every implementation, across reopen (and crash replay) variants.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DocumentWriteRow, LaunchRecord, PackageRecord } from '../../src-server/storage/storage';
import { makeStore } from './rows';
import type { ContractContext } from './storage-contract';

function makePackage(storeId: string, overrides: Partial<PackageRecord> = {}): PackageRecord {
  return {
    id: randomUUID(),
    storeId,
    kind: 'cmi5',
    title: 'Ladder safety',
    description: { kind: 'cmi5', units: [{ id: 'https://example.com/au/1', title: 'Intro' }] },
    files: 2,
    bytes: 1234,
    createdAt: '2024-05-01T10:00:00.000Z',
    reference: null,
    ...overrides,
  };
}

function makeLaunch(storeId: string, packageId: string, overrides: Partial<LaunchRecord> = {}): LaunchRecord {
  return {
    id: randomUUID(),
    storeId,
    packageId,
    unitId: 'https://example.com/au/1',
    registration: randomUUID(),
    actor: { objectType: 'Agent', name: 'Ada', mbox: 'mailto:ada@example.com' },
    sessionId: randomUUID(),
    launchMode: 'Normal',
    fetchSecretHash: 'hash-of-secret',
    fetchedAt: null,
    keyId: null,
    createdAt: '2024-05-01T10:00:01.000Z',
    ...overrides,
  };
}

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

export function describeBenchContract(ctx: ContractContext): void {
  describe('Test Bench packages and launches', () => {
    const s = () => ctx.storage();
    const storeId = () => ctx.store().id;

    async function importPackage(overrides: Partial<PackageRecord> = {}): Promise<PackageRecord> {
      const record = makePackage(storeId(), overrides);
      await s().writePackageFile(storeId(), record.id, 'cmi5.xml', bytes('<courseStructure/>'));
      await s().writePackageFile(storeId(), record.id, 'au/index.html', bytes('<html>AU</html>'));
      await s().insertPackage(record);
      return record;
    }

    it('keeps a package and its files, lists it, and serves a file only while the package is listed', async () => {
      const record = makePackage(storeId());
      await s().writePackageFile(storeId(), record.id, 'au/index.html', bytes('<html>AU</html>'));
      // Not listed until its record is in: its files are not served either.
      expect(await s().readPackageFile(storeId(), record.id, 'au/index.html')).toBeNull();
      await s().insertPackage(record);
      await ctx.reopen();
      expect(await s().listPackages(storeId())).toEqual([record]);
      expect(await s().findPackage(storeId(), record.id)).toEqual(record);
      expect(Buffer.from((await s().readPackageFile(storeId(), record.id, 'au/index.html'))!).toString()).toBe('<html>AU</html>');
      expect(await s().readPackageFile(storeId(), record.id, 'au/other.html')).toBeNull();
      expect(await s().findPackage(storeId(), randomUUID())).toBeNull();
    });

    it('deletes a package with its files and launches, and says when there was none', async () => {
      const kept = await importPackage({ createdAt: '2024-05-01T09:00:00.000Z' });
      const gone = await importPackage();
      await s().insertLaunch(makeLaunch(storeId(), gone.id));
      const keptLaunch = makeLaunch(storeId(), kept.id);
      await s().insertLaunch(keptLaunch);
      expect(await s().deletePackage(storeId(), gone.id)).toBe(true);
      expect(await s().deletePackage(storeId(), gone.id)).toBe(false);
      await ctx.reopen();
      expect((await s().listPackages(storeId())).map((p) => p.id)).toEqual([kept.id]);
      expect(await s().readPackageFile(storeId(), gone.id, 'au/index.html')).toBeNull();
      expect(await s().listLaunches(storeId(), {})).toEqual([keptLaunch]);
    });

    it('forgets the files of an import that failed before its record', async () => {
      const record = makePackage(storeId());
      await s().writePackageFile(storeId(), record.id, 'au/index.html', bytes('<html>half</html>'));
      await s().discardPackageFiles(storeId(), record.id);
      await s().insertPackage(record);
      expect(await s().readPackageFile(storeId(), record.id, 'au/index.html')).toBeNull();
    });

    it('keeps packages when the Store is emptied, not its launches; deleting the Store takes both', async () => {
      const record = await importPackage();
      await s().insertLaunch(makeLaunch(storeId(), record.id));
      await s().emptyStore(storeId());
      await ctx.reopen();
      expect((await s().listPackages(storeId())).map((p) => p.id)).toEqual([record.id]);
      expect(await s().readPackageFile(storeId(), record.id, 'au/index.html')).not.toBeNull();
      expect(await s().listLaunches(storeId(), {})).toEqual([]);
      await s().deleteStore(storeId());
      // A new Store of the same id starts with nothing.
      await s().insertStore({ ...makeStore(), id: storeId() });
      expect(await s().listPackages(storeId())).toEqual([]);
      expect(await s().readPackageFile(storeId(), record.id, 'au/index.html')).toBeNull();
    });

    it("sets and clears a package's reference outcome, and says when there is no such package", async () => {
      const record = await importPackage();
      const reference = { completion: true, success: true, minScore: 0.8 };
      expect(await s().setPackageReference(storeId(), record.id, reference)).toBe(true);
      await ctx.reopen();
      expect((await s().findPackage(storeId(), record.id))?.reference).toEqual(reference);
      expect(await s().setPackageReference(storeId(), record.id, null)).toBe(true);
      expect((await s().findPackage(storeId(), record.id))?.reference).toBeNull();
      expect(await s().setPackageReference(storeId(), randomUUID(), reference)).toBe(false);
    });

    it('keeps launches, finds them by id and by registration, oldest first', async () => {
      const record = await importPackage();
      const first = makeLaunch(storeId(), record.id, { createdAt: '2024-05-01T10:00:01.000Z' });
      const second = makeLaunch(storeId(), record.id, { registration: first.registration, createdAt: '2024-05-01T10:05:00.000Z' });
      const other = makeLaunch(storeId(), record.id, { sessionId: null, launchMode: null, fetchSecretHash: null, keyId: 'lore_test_key' });
      await s().insertLaunch(second);
      await s().insertLaunch(first);
      await s().insertLaunch(other);
      await ctx.reopen();
      expect(await s().findLaunch(storeId(), other.id)).toEqual(other);
      expect(await s().listLaunches(storeId(), { registration: first.registration })).toEqual([first, second]);
      // The Store's list in creation order too; launches made in the same millisecond by id.
      const tied = makeLaunch(storeId(), record.id, { createdAt: first.createdAt });
      await s().insertLaunch(tied);
      const expected = [first, second, other, tied].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
      expect((await s().listLaunches(storeId(), {})).map((launch) => launch.id)).toEqual(expected.map((launch) => launch.id));
      expect(await s().findLaunch(storeId(), randomUUID())).toBeNull();
    });

    it("keeps an attempt's State writes in order, apart from other attempts', until the Store is emptied", async () => {
      const registration = randomUUID();
      const write = (overrides: Partial<DocumentWriteRow>): DocumentWriteRow => ({
        registration,
        activityId: 'https://example.com/course',
        agent: 'mbox:mailto:ada@example.com',
        stateId: 'bookmark',
        method: 'PUT',
        status: 204,
        etagBefore: null,
        etagAfter: 'etag-1',
        contentType: 'application/json',
        content: '{"page":1}',
        keyId: 'lore_test_key',
        at: '2024-05-01T10:00:01.000Z',
        ...overrides,
      });
      await s().insertDocumentWrite(storeId(), write({}));
      await s().insertDocumentWrite(storeId(), write({ registration: randomUUID() }));
      await s().insertDocumentWrite(storeId(), write({ status: 412, etagBefore: 'etag-1', etagAfter: null, contentType: null, content: null, at: '2024-05-01T10:00:02.000Z' }));
      await ctx.reopen();
      const writes = await s().listDocumentWrites(storeId(), registration);
      expect(writes.map(({ id: _id, ...rest }) => rest)).toEqual([
        write({}),
        write({ status: 412, etagBefore: 'etag-1', etagAfter: null, contentType: null, content: null, at: '2024-05-01T10:00:02.000Z' }),
      ]);
      expect(writes[0]!.id).toBeLessThan(writes[1]!.id);
      await s().emptyStore(storeId());
      expect(await s().listDocumentWrites(storeId(), registration)).toEqual([]);
    });

    it('redeems a fetch URL once: the first call wins, with its key, across reopen', async () => {
      const record = await importPackage();
      const launch = makeLaunch(storeId(), record.id);
      await s().insertLaunch(launch);
      const calls = await Promise.all([
        s().redeemLaunchFetch(storeId(), launch.id, '2024-05-01T10:00:02.000Z', 'lore_key_a'),
        s().redeemLaunchFetch(storeId(), launch.id, '2024-05-01T10:00:02.500Z', 'lore_key_b'),
      ]);
      expect(calls.filter(Boolean)).toHaveLength(1);
      await ctx.reopen();
      expect(await s().redeemLaunchFetch(storeId(), launch.id, '2024-05-01T10:00:03.000Z', 'lore_key_c')).toBe(false);
      const redeemed = (await s().findLaunch(storeId(), launch.id))!;
      expect(redeemed.fetchedAt).toBe(calls[0] ? '2024-05-01T10:00:02.000Z' : '2024-05-01T10:00:02.500Z');
      expect(redeemed.keyId).toBe(calls[0] ? 'lore_key_a' : 'lore_key_b');
    });
  });
}
