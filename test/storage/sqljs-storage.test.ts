import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFile, copyFile, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DataDirLockedError, SNAPSHOT_FILE, StorageUnavailableError } from '../../src-server/storage/sqljs/sqljs-storage';
import type { SqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import { decodeJournal, encodeRecord } from '../../src-server/storage/sqljs/journal-format';
import { explorerRejectionQuery, explorerStatementQuery, statementQuery } from '../../src-server/storage/sqljs/queries';
import type { InsertStatementsOp } from '../../src-server/storage/sqljs/statement-writes';
import type { StatementQuery, StoreRecord } from '../../src-server/storage/storage';
import { at, makeApiKey, makeRejection, makeStatement, makeStore } from './rows';
import {
  SQLJS_CONTRACT_SUBJECTS,
  closedAfterEach,
  crashCopy,
  eventLoopTurns,
  instrumentedFs,
  ioError,
  journalFiles,
  loadSqlJs,
  openIn,
  removeTempDirs,
  schemaDatabase,
  tempDir,
  withStore,
} from './sqljs-helpers';
import { describeStorageContract } from './storage-contract';

const execFileAsync = promisify(execFile);

afterAll(removeTempDirs);

for (const [name, open] of SQLJS_CONTRACT_SUBJECTS) describeStorageContract(name, open);

describe('sql.js storage', () => {
  const track = closedAfterEach();

  describe('group commit', () => {
    it('makes 200 concurrent writes durable with a handful of fsyncs, not one each', async () => {
      const { fs, control } = instrumentedFs();
      const storage = await track(openIn(await tempDir(), { fs }));
      const store = await withStore(storage);
      const before = control.datasyncs;
      const results = await Promise.all(
        Array.from({ length: 200 }, () => storage.insertStatements(store.id, [makeStatement()])),
      );
      expect(results.every((r) => r.ok)).toBe(true);
      const fsyncs = control.datasyncs - before;
      expect(fsyncs).toBeGreaterThanOrEqual(1);
      expect(fsyncs).toBeLessThanOrEqual(5);
      expect((await storage.stats(store.id)).statements).toBe(200);
    });

    it('writes the records of one turn of the event loop with a single fdatasync', async () => {
      const { fs, control } = instrumentedFs();
      const storage = await track(openIn(await tempDir(), { fs }));
      const store = await withStore(storage);
      await storage.sync();
      const before = control.datasyncs;
      // As requests handled in one turn would: all appended before any is written.
      await Promise.all(Array.from({ length: 10 }, () => storage.insertStatements(store.id, [makeStatement()])));
      expect(control.datasyncs - before).toBe(1);
    });

    it('resolves a write only after its record is fsynced', async () => {
      const { fs, control } = instrumentedFs();
      const storage = await track(openIn(await tempDir(), { fs }));
      const store = await withStore(storage);
      const release = control.holdSyncs();
      let resolved = false;
      const write = storage.insertStatements(store.id, [makeStatement()]).then(() => (resolved = true));
      // Give the flush every chance to finish if it did not wait for the fsync.
      await eventLoopTurns(20);
      expect(resolved).toBe(false);
      release();
      await write;
      expect(resolved).toBe(true);
    });

    it('answers a repeated statement only once the first copy is durable', async () => {
      const { fs, control } = instrumentedFs();
      const storage = await track(openIn(await tempDir(), { fs }));
      const store = await withStore(storage);
      const release = control.holdSyncs();
      const row = makeStatement();
      const first = storage.insertStatements(store.id, [row]);
      let repeatDone = false;
      const repeat = storage.insertStatements(store.id, [row]).then((r) => {
        repeatDone = true;
        return r;
      });
      await eventLoopTurns(20);
      expect(repeatDone).toBe(false);
      release();
      expect(await first).toMatchObject({ inserted: [row.statementId] });
      expect(await repeat).toMatchObject({ unchanged: [row.statementId] });
    });
  });

  describe('journal records', () => {
    it('decode to the statements operation they were encoded from, whole', () => {
      const row = (seq: number, statement: Record<string, unknown>): InsertStatementsOp['rows'][number] => ({
        seq,
        statementId: statement.id as string,
        statement,
        signature: `sig-${seq}`,
        stored: at(seq),
        keyId: 'lore_test_key',
        verbId: 'http://adlnet.gov/expapi/verbs/completed',
        registration: null,
        voidsStatementId: null,
        targetStatementId: null,
        terms: [{ kind: 'agent', value: 'mbox:mailto:ada@example.com', primary: true }],
        lrsAdded: ['stored', 'authority'],
      });
      const op: InsertStatementsOp = {
        t: 'insertStatements',
        storeNum: 3,
        rows: [
          row(7, { id: randomUUID(), verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'done "quoted" \\ \u2028' } } }),
          row(8, { id: randomUUID(), result: { score: { raw: -0.5 }, extensions: { 'http://e.com/x': [1, { n: null }, '日本'] } } }),
        ],
        activities: [{ id: 'http://example.com/a', definition: { name: { en: 'A' } }, updated: at(8) }],
      };
      const bytes = encodeRecord({ j: 12, op });
      const decoded = decodeJournal(bytes);
      expect(decoded.damage).toBeNull();
      expect(decoded.records).toEqual([{ j: 12, op }]);
      // The same JSON value as the plain encoding (its keys in another order), and stable:
      // re-encoding a decoded record gives the same bytes, as the torn-tail recovery relies on.
      expect(JSON.parse(bytes.subarray(8).toString('utf8'))).toEqual(JSON.parse(JSON.stringify({ j: 12, op })));
      expect(encodeRecord(decoded.records[0]!).equals(bytes)).toBe(true);

      // The statements' bytes made when the operation was planned are used, never journaled themselves.
      const statementJson = op.rows.map((r) => ({ text: JSON.stringify(r.statement), bytes: Buffer.from(JSON.stringify(r.statement)) }));
      expect(encodeRecord({ j: 12, op: { ...op, statementJson } }).equals(bytes)).toBe(true);
      // They are what the record holds: other bytes planned would be written as they are.
      const planned = statementJson.map((json, index) => (index === 0 ? { ...json, bytes: Buffer.from(JSON.stringify({ planned: true })) } : json));
      expect(decodeJournal(encodeRecord({ j: 12, op: { ...op, statementJson: planned } })).records[0]!.op).toMatchObject({ rows: [{ statement: { planned: true } }, {}] });
    });
  });

  describe('recovery from a torn or corrupt journal tail', () => {
    /** Five statements written one by one (one record each), then a crash copy of the directory. */
    async function crashedAfterFiveWrites() {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const row = makeStatement();
        await storage.insertStatements(store.id, [row]);
        ids.push(row.statementId);
      }
      const dir = await crashCopy(storage.dataDir);
      const [journal] = await journalFiles(dir);
      const bytes = await readFile(journal!);
      // Record boundaries, to cut inside the last record.
      const decoded = decodeJournal(bytes);
      expect(decoded.records).toHaveLength(6);
      const lastRecordStart = bytes.length - encodeRecord(decoded.records[5]!).length;
      return { dir, journal: journal!, bytes, store, ids, lastRecordStart };
    }

    async function reopenLogged(dir: string) {
      const messages: string[] = [];
      const storage = await track(openIn(dir, { log: (m) => messages.push(m) }));
      return { storage, messages };
    }

    async function presentIds(storage: SqljsStorage, store: StoreRecord, ids: string[]): Promise<string[]> {
      const found: string[] = [];
      for (const id of ids) if (await storage.findStatement(store.id, id)) found.push(id);
      return found;
    }

    it('keeps every complete record and cuts a record torn in the middle', async () => {
      const { dir, journal, store, ids, lastRecordStart, bytes } = await crashedAfterFiveWrites();
      await truncate(journal, lastRecordStart + 20);
      const { storage, messages } = await reopenLogged(dir);
      expect(await presentIds(storage, store, ids)).toEqual(ids.slice(0, 4));
      expect(messages.join('\n')).toMatch(/short record.*dropped 20 bytes/);
      expect((await stat(journal)).size).toBe(lastRecordStart);
      expect(bytes.length).toBeGreaterThan(lastRecordStart);
    });

    it('cuts a torn record header', async () => {
      const { dir, journal, store, ids, lastRecordStart } = await crashedAfterFiveWrites();
      await truncate(journal, lastRecordStart + 5);
      const { storage, messages } = await reopenLogged(dir);
      expect(await presentIds(storage, store, ids)).toEqual(ids.slice(0, 4));
      expect(messages.join('\n')).toMatch(/short record header.*dropped 5 bytes/);
    });

    it('drops garbage and zeros appended after the last record', async () => {
      for (const tail of [Buffer.from('garbage after the end \u0001\u0002'), Buffer.alloc(4096)]) {
        const { dir, journal, store, ids, bytes } = await crashedAfterFiveWrites();
        await appendFile(journal, tail);
        const { storage, messages } = await reopenLogged(dir);
        expect(await presentIds(storage, store, ids)).toEqual(ids);
        expect(messages.join('\n')).toContain(`dropped ${tail.length} bytes`);
        expect((await stat(journal)).size).toBe(bytes.length);
      }
    });

    it('drops a last record whose checksum does not match its bytes', async () => {
      const { dir, journal, store, ids, bytes, lastRecordStart } = await crashedAfterFiveWrites();
      const damaged = Buffer.from(bytes);
      damaged[lastRecordStart + 30] = damaged[lastRecordStart + 30]! ^ 0xff;
      await writeFile(journal, damaged);
      const { storage, messages } = await reopenLogged(dir);
      expect(await presentIds(storage, store, ids)).toEqual(ids.slice(0, 4));
      expect(messages.join('\n')).toMatch(/bad record checksum/);
    });

    it('drops a record header with an impossible length', async () => {
      const { dir, journal, store, ids } = await crashedAfterFiveWrites();
      const header = Buffer.alloc(8);
      header.writeUInt32LE(0xfffffff0, 0);
      await appendFile(journal, header);
      const { storage, messages } = await reopenLogged(dir);
      expect(await presentIds(storage, store, ids)).toEqual(ids);
      expect(messages.join('\n')).toMatch(/bad record length/);
    });

    it('appends after the last good record, so writes after a recovery survive the next crash', async () => {
      const { dir, journal, store, ids, lastRecordStart } = await crashedAfterFiveWrites();
      await truncate(journal, lastRecordStart + 20);
      const { storage } = await reopenLogged(dir);
      const row = makeStatement();
      await storage.insertStatements(store.id, [row]);
      const again = await track(openIn(await crashCopy(dir)));
      expect(await presentIds(again, store, [...ids, row.statementId])).toEqual([...ids.slice(0, 4), row.statementId]);
    });
  });

  describe('snapshots', () => {
    it('writes an ordinary SQLite file that another SQLite reads', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      await storage.insertStatements(store.id, [makeStatement(), makeStatement({ verb: 'http://example.com/verb' })]);
      await storage.snapshot();
      const file = path.join(storage.dataDir, SNAPSHOT_FILE);
      const bytes = await readFile(file);
      expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
      const db = new (await loadSqlJs()).Database(bytes);
      try {
        expect(db.exec('PRAGMA integrity_check')[0]!.values).toEqual([['ok']]);
        expect(db.exec('SELECT count(*) FROM statements')[0]!.values).toEqual([[2]]);
        expect(db.exec('SELECT slug FROM stores')[0]!.values).toEqual([[store.slug]]);
      } finally {
        db.close();
      }
      expect(storage.databaseBytes).toBe(bytes.length);
      expect(storage.journalBytes).toBe(0);
    });

    it.skipIf(spawnSync('sqlite3', ['-version']).status !== 0)('opens with the sqlite3 command-line tool', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      await storage.insertStatements(store.id, [makeStatement(), makeStatement(), makeStatement()]);
      await storage.snapshot();
      const out = execFileSync('sqlite3', [path.join(storage.dataDir, SNAPSHOT_FILE), 'SELECT count(*) FROM statements;']);
      expect(out.toString().trim()).toBe('3');
    });

    it('takes a snapshot by itself once the journal passes the threshold, and starts a new journal', async () => {
      const messages: string[] = [];
      const storage = await track(openIn(await tempDir(), { snapshotThresholdBytes: 16 * 1024, log: (m) => messages.push(m) }));
      const store = await withStore(storage);
      const rows = Array.from({ length: 60 }, () => makeStatement());
      for (const row of rows) await storage.insertStatements(store.id, [row]);
      await vi.waitFor(() => expect(messages.join('\n')).toMatch(/snapshot written/));
      // A write after the snapshot: the new journal file is made by its first record, so without
      // one there is none when the snapshot came after the last of the sixty (a slow machine).
      await storage.insertStatements(store.id, [makeStatement()]);
      await storage.flush();
      expect(await journalFiles(storage.dataDir)).toHaveLength(1);
      expect(storage.journalBytes).toBeLessThan(16 * 1024);
      const copy = await track(openIn(await crashCopy(storage.dataDir)));
      expect((await copy.stats(store.id)).statements).toBe(61);
    });

    it('keeps every write that raced with a snapshot', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      await storage.insertStatements(store.id, [makeStatement()]);
      const writes = Array.from({ length: 100 }, () => storage.insertStatements(store.id, [makeStatement()]));
      const snapshot = storage.snapshot();
      writes.push(...Array.from({ length: 100 }, () => storage.insertStatements(store.id, [makeStatement()])));
      await Promise.all([snapshot, ...writes]);
      // Prepared statements still work after the snapshot.
      await storage.insertStatements(store.id, [makeStatement()]);
      const copy = await track(openIn(await crashCopy(storage.dataDir)));
      expect((await copy.stats(store.id)).statements).toBe(202);
      await storage.close();
      const reopened = await track(openIn(storage.dataDir));
      expect((await reopened.stats(store.id)).statements).toBe(202);
    });

    it('does not apply a record twice when a crash came between the snapshot rename and the journal reset', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      await storage.insertStatements(store.id, [makeStatement(), makeStatement()]);
      await storage.insertRejections(store.id, [makeRejection()]);
      const beforeSnapshot = await crashCopy(storage.dataDir);
      await storage.snapshot();
      await storage.insertStatements(store.id, [makeStatement()]);
      const afterSnapshot = await crashCopy(storage.dataDir);
      // The new image and new journal, plus the old journal the crash left undeleted.
      for (const journal of await journalFiles(beforeSnapshot)) {
        await copyFile(journal, path.join(afterSnapshot, path.basename(journal)));
      }
      expect(await journalFiles(afterSnapshot)).toHaveLength(2);
      const recovered = await track(openIn(afterSnapshot));
      expect(await recovered.stats(store.id)).toMatchObject({ statements: 3, rejections: 1 });
      expect((await recovered.searchExplorer(store.id, { limit: 10 })).records).toHaveLength(4);
    });

    it('replays both journals when a crash came after the journal switch but before the snapshot rename', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      await storage.insertStatements(store.id, [makeStatement(), makeStatement()]);
      const beforeSnapshot = await crashCopy(storage.dataDir);
      await storage.snapshot();
      await storage.insertStatements(store.id, [makeStatement()]);
      const afterSnapshot = await crashCopy(storage.dataDir);
      // The old image (none yet) and old journal, plus the new journal written after the switch.
      await rm(path.join(afterSnapshot, SNAPSHOT_FILE));
      for (const journal of await journalFiles(beforeSnapshot)) {
        await copyFile(journal, path.join(afterSnapshot, path.basename(journal)));
      }
      const recovered = await track(openIn(afterSnapshot));
      expect((await recovered.stats(store.id)).statements).toBe(3);
    });

    it('refuses to open when records are missing between the snapshot and the journal', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      await storage.insertStatements(store.id, [makeStatement()]);
      const dir = await crashCopy(storage.dataDir);
      // Renumber the only record as if earlier ones had been lost.
      const record = decodeJournal(await readFile((await journalFiles(dir))[0]!)).records;
      await writeFile((await journalFiles(dir))[0]!, encodeRecord({ ...record[1]!, j: 5 }));
      await expect(openIn(dir)).rejects.toThrow(/records are missing/);
      // The failed open released the lock.
      expect(await readdir(dir)).not.toContain('lore.lock');
    });
  });

  describe('the data directory lock', () => {
    it('refuses a second opening of a directory in use, naming the process', async () => {
      const storage = await track(openIn(await tempDir()));
      const attempt = openIn(storage.dataDir);
      await expect(attempt).rejects.toBeInstanceOf(DataDirLockedError);
      await expect(attempt).rejects.toThrow(`data directory ${storage.dataDir} is in use by process ${process.pid}`);
      // The owner is unaffected.
      await withStore(storage);
    });

    it('takes over the lock of a process that no longer runs, and releases it on close', async () => {
      const dir = await tempDir();
      const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
      const deadPid = Number(child.stdout.toString());
      expect(deadPid).toBeGreaterThan(0);
      await writeFile(path.join(dir, 'lore.lock'), `${deadPid}\n`);
      const messages: string[] = [];
      const storage = await openIn(dir, { log: (m) => messages.push(m) });
      expect(messages.join('\n')).toContain(`from process ${deadPid}`);
      expect((await readFile(path.join(dir, 'lore.lock'), 'utf8')).trim()).toBe(String(process.pid));
      await storage.close();
      expect(await readdir(dir)).not.toContain('lore.lock');
    });

    it('keeps every acknowledged write of a process killed with SIGKILL, and takes over its lock', async () => {
      const dir = await tempDir();
      const storeId = randomUUID();
      const child = execFileAsync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'crash-child.ts'), dir, storeId, '150']);
      const error = await child.then(
        () => null,
        (err: { signal?: string; stdout?: string }) => err,
      );
      expect(error?.signal).toBe('SIGKILL');
      expect(error?.stdout).toBe('acked\n');
      expect(await readdir(dir)).toContain('lore.lock');
      const storage = await track(openIn(dir));
      expect((await storage.stats(storeId)).statements).toBe(150);
      expect(await storage.findStatement(storeId, '00000000-0000-4000-8000-000000000149')).not.toBeNull();
    }, 30_000);
  });

  describe('when the disk fails', () => {
    it('rejects the writes of a failed flush, keeps reads working, forgets those writes, and recovers', async () => {
      const { fs, control } = instrumentedFs();
      const messages: string[] = [];
      const storage = await track(openIn(await tempDir(), { fs, log: (m) => messages.push(m) }));
      const store = await withStore(storage);
      const kept = makeStatement();
      await storage.insertStatements(store.id, [kept]);

      control.syncFailure = ioError('EIO');
      const lost = makeStatement();
      await expect(storage.insertStatements(store.id, [lost])).rejects.toBeInstanceOf(StorageUnavailableError);
      // The failed write's bytes reached the file, but it was never acknowledged: it must not come back.
      await vi.waitFor(() => expect(messages.join('\n')).toMatch(/reloaded the durable state/));
      expect(await storage.findStatement(store.id, lost.statementId)).toBeNull();
      expect(await storage.findStatement(store.id, kept.statementId)).not.toBeNull();
      expect(await storage.findStoreById(store.id)).toEqual(store);
      await expect(storage.insertStatements(store.id, [makeStatement()])).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(storage.insertStore(makeStore())).rejects.toBeInstanceOf(StorageUnavailableError);
      const crashed = await track(openIn(await crashCopy(storage.dataDir)));
      expect(await crashed.findStatement(store.id, lost.statementId)).toBeNull();
      expect(await crashed.findStatement(store.id, kept.statementId)).not.toBeNull();

      control.syncFailure = null;
      const later = makeStatement();
      await vi.waitFor(
        async () => expect(await storage.insertStatements(store.id, [later])).toMatchObject({ ok: true }),
        { timeout: 5_000, interval: 200 },
      );
      expect(messages.join('\n')).toMatch(/the disk takes writes again/);
      await storage.close();
      const reopened = await track(openIn(storage.dataDir));
      expect(await reopened.findStatement(store.id, later.statementId)).not.toBeNull();
      expect(await reopened.findStatement(store.id, kept.statementId)).not.toBeNull();
      expect(await reopened.findStatement(store.id, lost.statementId)).toBeNull();
    });

    it('refuses writes while the disk is full and still answers reads and last-used updates', async () => {
      const { fs, control } = instrumentedFs();
      const storage = await track(openIn(await tempDir(), { fs }));
      const store = await withStore(storage);
      const key = makeApiKey(store.id);
      await storage.insertApiKey(key);
      control.failure = ioError('ENOSPC');
      await expect(storage.insertRejections(store.id, [makeRejection()])).rejects.toBeInstanceOf(StorageUnavailableError);
      await expect(storage.insertStatements(store.id, [makeStatement()])).rejects.toThrow(/no space left/);
      await storage.updateApiKey(key.id, { lastUsedAt: at(5) });
      expect((await storage.findApiKey(key.id))?.lastUsedAt).toBe(at(5));
      // The rejection applied in memory before its flush failed disappears with the reload.
      await vi.waitFor(async () => expect(await storage.stats(store.id)).toMatchObject({ statements: 0, rejections: 0 }));
      expect((await storage.findApiKey(key.id))?.lastUsedAt).toBe(at(5));
      control.failure = null;
    });
  });

  describe('API-key last-used times', () => {
    it('does not write a journal record per last-used update', async () => {
      const storage = await track(openIn(await tempDir(), { touchFlushIntervalMs: 3_600_000 }));
      const store = await withStore(storage);
      const key = makeApiKey(store.id);
      await storage.insertApiKey(key);
      const bytes = storage.journalBytes;
      for (let i = 0; i < 100; i++) await storage.updateApiKey(key.id, { lastUsedAt: at(i) });
      expect(storage.journalBytes).toBe(bytes);
      expect((await storage.findApiKey(key.id))?.lastUsedAt).toBe(at(99));
    });

    it('journals the latest last-used times within the interval, so they survive a crash', async () => {
      const storage = await track(openIn(await tempDir(), { touchFlushIntervalMs: 20 }));
      const store = await withStore(storage);
      const key = makeApiKey(store.id);
      await storage.insertApiKey(key);
      const bytes = storage.journalBytes;
      await storage.updateApiKey(key.id, { lastUsedAt: at(50) });
      await storage.updateApiKey(key.id, { lastUsedAt: at(40) });
      await vi.waitFor(() => expect(storage.journalBytes).toBeGreaterThan(bytes));
      await vi.waitFor(async () => {
        const copy = await track(openIn(await crashCopy(storage.dataDir)));
        expect((await copy.findApiKey(key.id))?.lastUsedAt).toBe(at(50));
      });
    });
  });

  describe('attachments', () => {
    it('stores attachment content with its statement and finds it by sha2 after a crash', async () => {
      const storage = await track(openIn(await tempDir()));
      const store = await withStore(storage);
      const content = new Uint8Array([0, 1, 2, 250, 251, 252]);
      await storage.insertStatements(store.id, [
        makeStatement({ attachments: [{ sha2: 'abc123', contentType: 'application/octet-stream', content }] }),
      ]);
      const copy = await track(openIn(await crashCopy(storage.dataDir)));
      expect(await copy.findAttachments(store.id, ['abc123', 'missing'])).toEqual([
        { sha2: 'abc123', contentType: 'application/octet-stream', content },
      ]);
    });
  });

  describe('query plans', () => {
    it('drives every statement and Explorer query by an index in seq order: no sort, no full scan', async () => {
      const sql = await schemaDatabase();
      const filters: Array<Partial<StatementQuery>> = [
        {},
        { agent: 'a' },
        { agent: 'a', relatedAgents: true },
        { activityId: 'x' },
        { activityId: 'x', relatedActivities: true },
        { verbId: 'v' },
        { registration: 'r' },
        { agent: 'a', activityId: 'x', verbId: 'v', registration: 'r' },
        { activityId: 'x', verbId: 'v' },
        { verbId: 'v', registration: 'r' },
        { since: at(1), until: at(2) },
      ];
      const queries = [];
      for (const f of filters) {
        for (const extra of [{}, { ascending: true, afterSeq: 5 }, { afterSeq: 5, maxSeq: 9 }]) {
          queries.push(statementQuery(1, { limit: 10, ...f, ...extra }, 11));
        }
        for (const status of [undefined, 'accepted', 'voided', 'rejected'] as const) {
          const q = { limit: 10, status, agent: f.agent, activityId: f.activityId, verbId: f.verbId, beforeSeq: 9 };
          queries.push(explorerStatementQuery(1, q, 11), explorerRejectionQuery(1, q, 11));
        }
      }
      for (const q of queries) {
        const plan = sql.all(`EXPLAIN QUERY PLAN ${q.sql}`, q.params).map((row) => String(row[3]));
        expect(plan.join(' | '), q.sql).not.toMatch(/TEMP B-TREE|^SCAN|\| SCAN/);
      }
      sql.close();
    });
  });
});
