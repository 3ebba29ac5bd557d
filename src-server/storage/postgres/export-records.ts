/**
 * PostgreSQL as portable records (../portable.ts), in the same order as the embedded database
 * exports them: Store by Store, its keys, attachments, statements in seq order (with their index
 * terms), Activity definitions, rejections, documents and refused requests; then the
 * service-wide log. Statements and rejections stop at the settled seq read at the start.
 */
import type { PortableRecord, PortableStatement } from '../portable';
import { refusalFields } from '../row-values';
import type { DocumentKind, IndexTerm } from '../storage';
import type { PostgresDatabase } from './database';
import { listApiKeyRows, listStoreRows } from './records';
import { REFUSAL_COLUMNS, SERVICE_WIDE, toRefusal } from './refusals';
import type { RefusalDbRow } from './refusals';
import { settledSeq } from './record-seq';

const BATCH = 5_000;

export async function* exportPostgresRecords(db: PostgresDatabase): AsyncGenerator<PortableRecord> {
  const settled = await settledSeq(db);
  for (const { num, ...store } of await listStoreRows(db)) {
    yield { t: 'store', store };
    for (const key of await listApiKeyRows(db, store.id)) yield { t: 'apiKey', key };
    yield* attachments(db, num, store.id);
    yield* statements(db, num, store.id, settled);
    yield* activities(db, num, store.id);
    yield* rejections(db, num, store.id, settled);
    yield* documents(db, num, store.id);
    yield* refusals(db, num, store.id);
  }
  yield* refusals(db, SERVICE_WIDE, null);
}

async function* attachments(db: PostgresDatabase, storeNum: number, storeId: string): AsyncGenerator<PortableRecord> {
  let after = '';
  for (;;) {
    const rows = await db.query<{ sha2: string; content_type: string; content: Buffer }>(
      'SELECT sha2, content_type, content FROM attachments WHERE store_num = $1 AND sha2 > $2 ORDER BY sha2 COLLATE "C" LIMIT 100',
      [storeNum, after],
    );
    if (rows.length === 0) return;
    yield { t: 'attachments', storeId, attachments: rows.map((r) => ({ sha2: r.sha2, contentType: r.content_type, content: new Uint8Array(r.content) })) };
    after = rows[rows.length - 1]!.sha2;
  }
}

interface StatementExportRow {
  seq: number;
  statement_id: string;
  statement: string;
  signature: string;
  stored: string;
  key_id: string;
  verb_id: string;
  registration: string | null;
  voided: boolean;
  voids_statement_id: string | null;
  target_statement_id: string | null;
  received: string | null;
  lrs_added: string[] | null;
  warnings: string | null;
}

async function* statements(db: PostgresDatabase, storeNum: number, storeId: string, settled: number): AsyncGenerator<PortableRecord> {
  let after = 0;
  for (;;) {
    const rows = await db.query<StatementExportRow>(
      `SELECT seq, statement_id, statement, signature, stored, key_id, verb_id, registration, voided, voids_statement_id,
              target_statement_id, received, lrs_added, warnings
         FROM statements WHERE store_num = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
      [storeNum, after, settled, BATCH],
    );
    if (rows.length === 0) return;
    const first = rows[0]!.seq;
    const last = rows[rows.length - 1]!.seq;
    const terms = new Map<number, IndexTerm[]>();
    for (const posting of await db.query<{ seq: number; kind: IndexTerm['kind']; value: string; is_primary: boolean }>(
      `SELECT p.seq, t.kind, t.value, p.is_primary FROM term_postings AS p JOIN terms AS t ON t.id = p.term
        WHERE p.store_num = $1 AND p.seq BETWEEN $2 AND $3`,
      [storeNum, first, last],
    )) {
      const list = terms.get(posting.seq) ?? [];
      list.push({ kind: posting.kind, value: posting.value, primary: posting.is_primary });
      terms.set(posting.seq, list);
    }
    const out: PortableStatement[] = rows.map((row) => {
      const statement: PortableStatement = {
        statementId: row.statement_id,
        statement: JSON.parse(row.statement) as Record<string, unknown>,
        // '' stands for a signature left to be computed: null, as StatementRow says it.
        signature: row.signature || null,
        stored: row.stored,
        keyId: row.key_id,
        verbId: row.verb_id,
        registration: row.registration,
        voided: row.voided,
        voidsStatementId: row.voids_statement_id,
        targetStatementId: row.target_statement_id,
        terms: terms.get(row.seq) ?? [],
      };
      if (row.received !== null) statement.received = JSON.parse(row.received);
      if (row.lrs_added !== null) statement.lrsAdded = row.lrs_added as PortableStatement['lrsAdded'];
      if (row.warnings !== null) statement.warnings = JSON.parse(row.warnings) as PortableStatement['warnings'];
      return statement;
    });
    yield { t: 'statements', storeId, rows: out };
    after = last;
  }
}

async function* activities(db: PostgresDatabase, storeNum: number, storeId: string): AsyncGenerator<PortableRecord> {
  let after = '';
  for (;;) {
    const rows = await db.query<{ activity_id: string; definition: string; updated: string }>(
      'SELECT activity_id, definition, updated FROM activities WHERE store_num = $1 AND activity_id > $2 ORDER BY activity_id COLLATE "C" LIMIT $3',
      [storeNum, after, BATCH],
    );
    if (rows.length === 0) return;
    yield { t: 'activities', storeId, activities: rows.map((r) => ({ activityId: r.activity_id, definition: JSON.parse(r.definition) as Record<string, unknown>, updated: r.updated })) };
    after = rows[rows.length - 1]!.activity_id;
  }
}

async function* rejections(db: PostgresDatabase, storeNum: number, storeId: string, settled: number): AsyncGenerator<PortableRecord> {
  let after = 0;
  for (;;) {
    const rows = await db.query<{ seq: number; received_at: string; key_id: string; statement_id: string | null; payload: string; error: string; agent: string | null; verb_id: string | null; activity_id: string | null }>(
      `SELECT seq, received_at, key_id, statement_id, payload, error, agent, verb_id, activity_id FROM rejections
        WHERE store_num = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
      [storeNum, after, settled, BATCH],
    );
    if (rows.length === 0) return;
    yield {
      t: 'rejections',
      storeId,
      rows: rows.map((r) => ({
        receivedAt: r.received_at,
        keyId: r.key_id,
        statementId: r.statement_id,
        payload: JSON.parse(r.payload) as unknown,
        error: JSON.parse(r.error) as { code: string; message: string },
        agent: r.agent,
        verbId: r.verb_id,
        activityId: r.activity_id,
      })),
    };
    after = rows[rows.length - 1]!.seq;
  }
}

async function* documents(db: PostgresDatabase, storeNum: number, storeId: string): AsyncGenerator<PortableRecord> {
  const rows = await db.query<{ kind: DocumentKind; activity_id: string; agent: string; registration: string; doc_id: string; content_type: string; content: Buffer; etag: string; updated: string }>(
    'SELECT kind, activity_id, agent, registration, doc_id, content_type, content, etag, updated FROM documents WHERE store_num = $1',
    [storeNum],
  );
  const orNull = (value: string) => (value === '' ? null : value);
  for (const r of rows) {
    yield {
      t: 'document',
      storeId,
      key: { kind: r.kind, activityId: orNull(r.activity_id), agent: orNull(r.agent), registration: orNull(r.registration), id: r.doc_id },
      document: { contentType: r.content_type, content: new Uint8Array(r.content), etag: r.etag, updated: r.updated },
    };
  }
}

async function* refusals(db: PostgresDatabase, storeNum: number, storeId: string | null): AsyncGenerator<PortableRecord> {
  let after = 0;
  for (;;) {
    const rows = await db.query<RefusalDbRow>(`SELECT ${REFUSAL_COLUMNS} FROM refusals WHERE store_num = $1 AND id > $2 ORDER BY id LIMIT $3`, [
      storeNum,
      after,
      BATCH,
    ]);
    if (rows.length === 0) return;
    yield { t: 'refusals', rows: rows.map((r) => ({ ...refusalFields(toRefusal(r, storeId)), storeId })) };
    after = rows[rows.length - 1]!.id;
  }
}
