/** sql.js specifics of Activity definitions (sqljs/activities.ts); the contract runs in storage-contract.ts. */
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeDefinition } from '../../src-server/storage/activity-merge';
import { decodeJournal } from '../../src-server/storage/sqljs/journal-format';
import { makeStatement } from './rows';
import { journalFiles, openIn, removeTempDirs, rewriteSnapshot, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

describe('sql.js Activity definitions', () => {
  it('journals the merged definition whole, and only the definitions a batch changes', async () => {
    const storage = await openIn(await tempDir());
    const store = await withStore(storage);
    const activityId = 'http://example.com/meetings/42';
    const row = (name: Record<string, string>) => ({ ...makeStatement(), activityDefinitions: [{ activityId, definition: { name } }] });
    await storage.insertStatements(store.id, [row({ 'en-US': 'meeting' })]);
    await storage.insertStatements(store.id, [row({ 'fr-FR': 'réunion' })]);
    await storage.insertStatements(store.id, [row({ 'fr-FR': 'réunion' })]);
    await storage.flush();
    const [file] = await journalFiles(storage.dataDir);
    const ops = decodeJournal(await readFile(file!)).records.map((r) => r.op).filter((op) => op.t === 'insertStatements');
    expect(ops.map((op) => (op.t === 'insertStatements' ? (op.activities ?? null) : undefined))).toEqual([
      [{ id: activityId, definition: { name: { 'en-US': 'meeting' } }, updated: expect.any(String) }],
      [{ id: activityId, definition: { name: { 'en-US': 'meeting', 'fr-FR': 'réunion' } }, updated: expect.any(String) }],
      null,
    ]);
    await storage.close();
  });

  it('opens a data directory written before the activities table existed, and adds it', async () => {
    const dir = await tempDir();
    const first = await openIn(dir);
    const store = await withStore(first);
    await first.close();
    // The snapshot as an earlier release left it: no activities table.
    await rewriteSnapshot(dir, 'DROP TABLE activities');

    const reopened = await openIn(dir);
    expect(await reopened.findActivity(store.id, 'http://example.com/a')).toBeNull();
    await reopened.insertStatements(store.id, [
      { ...makeStatement(), activityDefinitions: [{ activityId: 'http://example.com/a', definition: { name: { en: 'a' } } }] },
    ]);
    expect((await reopened.findActivity(store.id, 'http://example.com/a'))?.definition).toEqual({ name: { en: 'a' } });
    await reopened.close();
  });
});

describe('mergeDefinition', () => {
  it('replaces members, merges members that are objects on both sides, and changes neither argument', () => {
    const stored = { name: { en: 'a' }, type: 'http://example.com/t1', choices: [{ id: 'x' }] };
    const received = { name: { fr: 'b' }, type: 'http://example.com/t2', choices: [{ id: 'y' }], moreInfo: 'http://example.com' };
    expect(mergeDefinition(stored, received)).toEqual({
      name: { en: 'a', fr: 'b' },
      type: 'http://example.com/t2',
      choices: [{ id: 'y' }],
      moreInfo: 'http://example.com',
    });
    expect(stored).toEqual({ name: { en: 'a' }, type: 'http://example.com/t1', choices: [{ id: 'x' }] });
  });

  it('replaces an object with a non-object and the other way round', () => {
    expect(mergeDefinition({ a: { x: 1 } }, { a: [1] })).toEqual({ a: [1] });
    expect(mergeDefinition({ a: 'text' }, { a: { x: 1 } })).toEqual({ a: { x: 1 } });
  });

  it('keeps a key named "__proto__" as data, never as a prototype', () => {
    const received = JSON.parse('{"extensions": {"__proto__": {"polluted": true}}}') as Record<string, unknown>;
    const merged = mergeDefinition({ extensions: { 'http://example.com/e': 1 } }, received);
    expect(Object.getPrototypeOf(merged.extensions)).toBe(Object.prototype);
    expect(JSON.stringify(merged)).toBe('{"extensions":{"http://example.com/e":1,"__proto__":{"polluted":true}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
