import { describe, expect, it } from 'vitest';
import { explorerPageUtf8 } from '../../src-server/admin/explorer';
import type { ExplorerRecord } from '../../src-server/storage/storage';

const STORED = {
  id: '0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b',
  actor: { objectType: 'Agent', name: 'Ada "the first" {Lovelace}', mbox: 'mailto:ada@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed, "stored": 1' } },
  object: { id: 'https://example.com/course/1', definition: { name: { 'en-US': 'Course \\ 1 ]}' } } },
  result: { score: { scaled: 0.5 }, success: true },
  timestamp: '2024-06-02T08:00:00.000Z',
  stored: '2024-06-02T08:00:01.000Z',
  authority: { objectType: 'Agent', account: { homePage: 'https://lrs.example.com', name: 'key' } },
  version: '1.0.0',
};

const explorerPageJson = (records: readonly ExplorerRecord[], next: string | null) => explorerPageUtf8(records, next).toString('utf8');

/** A record as a storage that keeps the text gives it, and the same without the text. */
function records(extra: Partial<ExplorerRecord>): [withText: ExplorerRecord, without: ExplorerRecord] {
  const base: ExplorerRecord = { seq: 7, status: 'accepted', statementId: STORED.id, receivedAt: STORED.stored, keyId: 'k1', stored: STORED, warnings: [], error: null, ...extra };
  const withText: ExplorerRecord = {
    ...base,
    // As the embedded storage gives it: parsed only if read, and the page must not read it.
    get stored(): Record<string, unknown> {
      throw new Error('the page parsed the stored statement');
    },
    storedJson: JSON.stringify(STORED),
    ...(extra.received === undefined ? {} : { receivedJson: JSON.stringify(extra.received) }),
  };
  return [withText, base];
}

describe('explorerPageJson', () => {
  it('writes from the stored text the same page as from the parsed statements', () => {
    const cases = [
      records({ lrsAdded: ['id', 'version', 'stored', 'authority'] }),
      records({ lrsAdded: [] }),
      records({}), // written before the received columns: the stored statement is shown
      records({ lrsAdded: ['id'], received: { actor: { mbox: 'mailto:ada@example.com' }, verb: STORED.verb, object: STORED.object, stored: 'sent' } }),
      records({ status: 'voided', warnings: [{ field: 'timestamp', message: 'in the future' }], lrsAdded: ['stored', 'authority'] }),
    ];
    for (const [withText, without] of cases) {
      const fromText = JSON.parse(explorerPageJson([withText], '6')) as unknown;
      expect(fromText).toEqual(JSON.parse(explorerPageJson([without], '6')));
      expect(fromText).toMatchObject({ records: [{ seq: 7, stored: STORED }], next: '6' });
      // As the embedded storage gives it: the text's UTF-8 bytes in its place (a plain Uint8Array,
      // as sql.js gives). The same page.
      const { storedJson, ...rest } = Object.getOwnPropertyDescriptors(withText);
      const withBytes = Object.defineProperties({}, rest) as ExplorerRecord;
      withBytes.storedUtf8 = new Uint8Array(Buffer.from(storedJson!.value as string, 'utf8'));
      expect(explorerPageJson([withBytes, withText], '6')).toBe(explorerPageJson([withText, withText], '6'));
    }
    const [accepted] = cases[0]!;
    const statement = (JSON.parse(explorerPageJson([accepted], null)) as { records: Array<{ statement: Record<string, unknown> }> }).records[0]!.statement;
    expect(Object.keys(statement)).toEqual(['actor', 'verb', 'object', 'result', 'timestamp']);
  });

  it('writes a rejected record and an empty page', () => {
    const rejected: ExplorerRecord = { seq: 3, status: 'rejected', statementId: null, receivedAt: STORED.stored, keyId: 'k1', payload: { verb: 1 }, error: { code: 'invalid_statement', message: 'verb', field: 'verb' } };
    expect(JSON.parse(explorerPageJson([rejected], null))).toEqual({ records: [{ seq: 3, status: 'rejected', statementId: null, receivedAt: STORED.stored, keyId: 'k1', statement: { verb: 1 }, error: rejected.error }], next: null });
    expect(explorerPageJson([], null)).toBe('{"records":[],"next":null}');
  });
});
