/**
 * The statement column's compact form (sqljs/statement-codec.ts): exact round trips, rows written
 * in the compact form, and data directories written before it (TEXT statements, hex signatures)
 * read the same and take new statements beside them.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { explorerPageUtf8 } from '../../src-server/admin/explorer';
import type { ExplorerRecord } from '../../src-server/storage/storage';
import { SNAPSHOT_FILE, SNAPSHOT_SUMS_FILE } from '../../src-server/storage/sqljs/data-dir-files';
import { Sql } from '../../src-server/storage/sqljs/sql';
import {
  STATEMENT_AND_CONTEXT,
  StatementEncoder,
  decodeStatement,
  receivedText,
  registerStatementText,
  rowContext,
  signatureText,
  statementText,
  statementTextAt,
} from '../../src-server/storage/sqljs/statement-codec';
import { prng, statementGenerator } from '../../scripts/bench/statements';
import { makeStatement } from './rows';
import { crashCopy, loadSqlJs, openIn, removeTempDirs, snapshotSql, tempDir, withStore } from './sqljs-helpers';

afterAll(removeTempDirs);

const explorerPage = (records: ExplorerRecord[]) => JSON.parse(explorerPageUtf8(records, null).toString('utf8')) as unknown;
const CONTEXT_ROW = { statementId: randomUUID(), stored: '2026-01-01T00:00:00.000Z', keyId: 'lore_test_abc' };
const CONTEXT = rowContext(CONTEXT_ROW);
const CONTEXT_TEXT = `${CONTEXT_ROW.statementId}${CONTEXT_ROW.stored}${CONTEXT_ROW.keyId}`;
const roundTrip = (encoder: StatementEncoder, text: string) => decodeStatement(encoder.encode(Buffer.from(text, 'utf8'), CONTEXT), CONTEXT);

/** A statement row with a real SHA-256 signature (the form the write path gives), so it is kept as 32 bytes. */
function hexSigned(spec: Parameters<typeof makeStatement>[0] = {}) {
  const row = makeStatement(spec);
  return { ...row, signature: createHash('sha256').update(row.signature!).digest('hex') };
}

describe('the compact form of statements', () => {
  it('gives back exactly the text it was given, whatever the text', () => {
    const encoder = new StatementEncoder();
    const generator = statementGenerator(7);
    const random = prng(3);
    const texts = [
      '{}',
      '',
      'abc',
      JSON.stringify({ name: 'Zoë ✓ 学习 😀', note: 'x'.repeat(5000) }),
      JSON.stringify({ a: 'ab'.repeat(300), b: 'abc'.repeat(1000) }),
      // Matches that run from the dictionary's end into the row's context, from the context into
      // the text, and that overlap their own output, short and long (decoding copies runs whole).
      `"account":{"homePage":"http://","name":"lore_live_lore_test_"}},"version":"1.0.0"}${CONTEXT_TEXT}${CONTEXT_TEXT}`,
      `${CONTEXT_TEXT.slice(-9)}${'xyz'.repeat(3)}${CONTEXT_TEXT.slice(-9)}${'xyz'.repeat(60)}${'q'.repeat(9)}${'q'.repeat(200)}`,
      // Longer than a match distance reaches: matches must stay within 65,535 bytes.
      JSON.stringify({ big: Array.from({ length: 9000 }, (_, i) => `item-${i}-${Math.floor(random() * 1e6)}`) }),
      ...Array.from({ length: 200 }, () => JSON.stringify(generator.next())),
      ...Array.from({ length: 50 }, () => Array.from({ length: Math.floor(random() * 600) }, () => String.fromCharCode(32 + Math.floor(random() * 95))).join('')),
    ];
    for (const text of texts) expect(roundTrip(encoder, text)).toBe(text);
  });

  it('keeps a realistic statement in well under half its text', () => {
    const encoder = new StatementEncoder();
    const generator = statementGenerator(1);
    let text = 0;
    let encoded = 0;
    for (let i = 0; i < 100; i++) {
      const bytes = Buffer.from(JSON.stringify(generator.next()), 'utf8');
      text += bytes.length;
      encoded += encoder.encode(bytes, CONTEXT).length;
    }
    expect(encoded / text).toBeLessThan(0.45);
  });

  it('refuses a value it cannot decode rather than give back other text', () => {
    const encoded = new StatementEncoder().encode(Buffer.from(JSON.stringify({ verb: { id: 'http://adlnet.gov/expapi/verbs/completed' } })), CONTEXT);
    expect(() => decodeStatement(Uint8Array.of(9, ...encoded.subarray(1)), CONTEXT)).toThrow(/unknown statement format/);
    expect(() => decodeStatement(encoded.subarray(0, encoded.length - 1), CONTEXT)).toThrow(/damaged/);
    expect(() => statementText(null, { statementId: '', stored: '', keyId: '' })).toThrow(/NULL/);
    expect(signatureText(Buffer.from('ab'.repeat(32), 'hex'))).toBe('ab'.repeat(32));
  });

  it('stores statements compact and signatures as bytes, keeps statements declaring attachments as text, and reads them all back', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const plain = hexSigned({ actorName: 'Zoë', verbDisplay: { 'en-US': 'completed' } });
    // Kept as received too: in the compact form against the stored statement, a few bytes where they differ.
    const sentWith = { ...plain, lrsAdded: ['stored' as const], received: { ...plain.statement, id: plain.statementId.toUpperCase(), stored: undefined } };
    const withAttachment = hexSigned();
    withAttachment.statement = { ...withAttachment.statement, attachments: [{ usageType: 'http://example.com/u', display: { en: 'a' }, contentType: 'text/plain', length: 1, sha2: 'f'.repeat(64) }] };
    await storage.insertStatements(store.id, [sentWith, withAttachment]);
    // As killed with -9 here: the journal, replayed at open, encodes the statements again.
    const crashed = await openIn(await crashCopy(dir));
    expect((await crashed.findStatement(store.id, plain.statementId))!.statementJson).toBe(JSON.stringify(plain.statement));
    expect((await crashed.searchExplorer(store.id, { limit: 1, beforeSeq: 2 })).records[0]!.received).toEqual(JSON.parse(JSON.stringify(sentWith.received)));
    await crashed.close();
    // Live, then across a reopen (the snapshot read).
    for (let round = 0; round < 2; round++) {
      const reopened = round === 0 ? storage : await openIn(dir);
      expect((await reopened.findStatement(store.id, plain.statementId))!.statementJson).toBe(JSON.stringify(plain.statement));
      expect((await reopened.findStatement(store.id, withAttachment.statementId))!.statementJson).toBe(JSON.stringify(withAttachment.statement));
      const [record] = (await reopened.searchExplorer(store.id, { limit: 1, beforeSeq: 2 })).records;
      expect(record!.received).toEqual(JSON.parse(JSON.stringify(sentWith.received)));
      // The same statement again is unchanged; other content under its id is a conflict.
      expect(await reopened.insertStatements(store.id, [plain])).toEqual({ ok: true, inserted: [], unchanged: [plain.statementId] });
      const changed = { ...hexSigned({ id: plain.statementId, variant: 'other' }) };
      expect((await reopened.insertStatements(store.id, [changed])).ok).toBe(false);
      await reopened.close();
    }
    const sql = await snapshotSql(dir);
    try {
      const types = sql.all('SELECT statement_id, typeof(statement), typeof(signature), length(signature), typeof(received) FROM statements ORDER BY seq');
      expect(types).toEqual([
        [plain.statementId, 'blob', 'blob', 32, 'blob'],
        [withAttachment.statementId, 'text', 'blob', 32, 'null'],
      ]);
      // The upper-case id is its one difference of note (36 bytes as literals).
      expect(sql.first('SELECT length(received) FROM statements WHERE seq = 1')![0]).toBeLessThan(80);
    } finally {
      sql.close();
    }
  });

  it('opens a data directory written before the compact form, reads its rows the same, and writes new ones beside them', async () => {
    const dir = await tempDir();
    const storage = await openIn(dir);
    const store = await withStore(storage);
    const asSent = hexSigned({ activity: 'http://example.com/course/2' });
    const old = [hexSigned({ actorName: 'Ada', verbDisplay: { 'en-US': 'completed' } }), { ...asSent, lrsAdded: [], received: { ...asSent.statement, id: asSent.statementId.toUpperCase() } }];
    await storage.insertStatements(store.id, old);
    const before = {
      page: (await storage.queryStatements(store.id, { limit: 10 })).statements.map((s) => [s.statementId, s.statementJson, s.stored]),
      // The Explorer's page as the console gets it: a TEXT row gives the text, a compact one its bytes.
      explorer: explorerPage((await storage.searchExplorer(store.id, { limit: 10 })).records),
    };
    await storage.close();

    // What the release before wrote: the statement as TEXT and the signature as hex text.
    const file = path.join(dir, SNAPSHOT_FILE);
    const sql = new Sql(new (await loadSqlJs()).Database(await readFile(file)));
    try {
      registerStatementText(sql);
      const received = sql.all(`SELECT seq, received, ${STATEMENT_AND_CONTEXT} FROM statements WHERE received IS NOT NULL`);
      expect(received).toHaveLength(1);
      for (const row of received) sql.run('UPDATE statements SET received = CAST(? AS TEXT) WHERE seq = ?', [receivedText(row[1], statementTextAt(row, 2)), row[0] as number]);
      sql.run("UPDATE statements SET statement = CAST(statement_text(statement, statement_id, stored, key_id) AS TEXT), signature = lower(hex(signature)) WHERE typeof(statement) = 'blob'");
      expect(sql.all('SELECT DISTINCT typeof(statement), typeof(signature) FROM statements')).toEqual([['text', 'text']]);
      expect(sql.all('SELECT typeof(received) FROM statements WHERE received IS NOT NULL')).toEqual([['text']]);
      await writeFile(file, sql.db.export());
      await rm(path.join(dir, SNAPSHOT_SUMS_FILE), { force: true });
    } finally {
      sql.close();
    }

    const reopened = await openIn(dir);
    expect((await reopened.queryStatements(store.id, { limit: 10 })).statements.map((s) => [s.statementId, s.statementJson, s.stored])).toEqual(before.page);
    expect(explorerPage((await reopened.searchExplorer(store.id, { limit: 10 })).records)).toEqual(before.explorer);
    // An old row's signature still decides unchanged and conflict.
    expect(await reopened.insertStatements(store.id, [old[0]!])).toEqual({ ok: true, inserted: [], unchanged: [old[0]!.statementId] });
    expect((await reopened.insertStatements(store.id, [hexSigned({ id: old[0]!.statementId, variant: 'x' })])).ok).toBe(false);
    const added = hexSigned({ id: randomUUID() });
    await reopened.insertStatements(store.id, [added]);
    const ids = (await reopened.queryStatements(store.id, { limit: 10 })).statements.map((s) => s.statementId);
    expect(ids).toEqual([added.statementId, ...before.page.map(([id]) => id)]);
    await reopened.close();
  });
});
