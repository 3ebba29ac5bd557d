/**
 * The embedded database as portable records (../portable.ts): Store by Store, its keys, its
 * attachments, its statements in seq order (with their index terms and StatementRef target), its
 * Activity definitions, rejections, documents and refused requests; then the service-wide log of
 * refused requests. Statements and rejections stop at the durable seq. Read in batches: the
 * storage keeps serving between them.
 */
import type { PortableRecord, PortableStatement } from '../portable';
import { refusalFields } from '../row-values';
import type { DocumentKind, IndexTerm } from '../storage';
import { listApiKeyRows } from './api-keys';
import { lrsAddedNames } from './received';
import { REFUSAL_COLUMNS, SERVICE_WIDE, toStoredRefusal } from './refusals';
import type { Sql } from './sql';
import { receivedText, signatureText, statementText } from './statement-codec';
import { findStoreRow } from './stores';

const BATCH = 5_000;

export async function* exportSqljsRecords(sql: Sql, visibleSeq: number): AsyncGenerator<PortableRecord> {
  for (const [num, id] of sql.all('SELECT num, id FROM stores ORDER BY num') as Array<[number, string]>) {
    const store = findStoreRow(sql, 'id', id);
    if (!store) continue;
    yield { t: 'store', store };
    for (const key of listApiKeyRows(sql, id)) yield { t: 'apiKey', key };
    yield* attachments(sql, num, id);
    yield* statements(sql, num, id, visibleSeq);
    yield* activities(sql, num, id);
    yield* rejections(sql, num, id, visibleSeq);
    yield* documents(sql, num, id);
    yield* refusals(sql, num, id);
    await Promise.resolve(); // let requests run between Stores
  }
  yield* refusals(sql, SERVICE_WIDE, null);
}

function* attachments(sql: Sql, storeNum: number, storeId: string): Generator<PortableRecord> {
  let after = '';
  for (;;) {
    const rows = sql.all('SELECT sha2, content_type, content FROM attachments WHERE store_num = ? AND sha2 > ? ORDER BY sha2 LIMIT 100', [storeNum, after]);
    if (rows.length === 0) return;
    yield { t: 'attachments', storeId, attachments: rows.map(([sha2, contentType, content]) => ({ sha2: sha2 as string, contentType: contentType as string, content: new Uint8Array(content as Uint8Array) })) };
    after = rows[rows.length - 1]![0] as string;
  }
}

function* statements(sql: Sql, storeNum: number, storeId: string, visibleSeq: number): Generator<PortableRecord> {
  let after = 0;
  for (;;) {
    const rows = sql.all(
      `SELECT seq, statement_id, statement, signature, stored, key_id, verb_id, registration, voided, voids_statement_id, received, lrs_added, warnings
         FROM statements WHERE store_num = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      [storeNum, after, visibleSeq, BATCH],
    );
    if (rows.length === 0) return;
    const first = rows[0]![0] as number;
    const last = rows[rows.length - 1]![0] as number;
    const targets = new Map(
      sql.all('SELECT seq, target_id FROM statement_targets WHERE store_num = ? AND seq BETWEEN ? AND ?', [storeNum, first, last]) as Array<[number, string]>,
    );
    const terms = new Map<number, IndexTerm[]>();
    for (const [seq, kind, value, primary] of sql.all(
      `SELECT p.seq, t.kind, t.value, p.is_primary FROM terms AS t CROSS JOIN term_postings AS p ON p.term = t.id
        WHERE t.store_num = ? AND p.seq BETWEEN ? AND ?`,
      [storeNum, first, last],
    )) {
      const list = terms.get(seq as number) ?? [];
      list.push({ kind: kind as IndexTerm['kind'], value: value as string, primary: primary === 1 });
      terms.set(seq as number, list);
    }
    const out: PortableStatement[] = rows.map((row) => {
      const seq = row[0] as number;
      const text = statementText(row[2], { statementId: row[1] as string, stored: row[4] as string, keyId: row[5] as string });
      const statement: PortableStatement = {
        statementId: row[1] as string,
        statement: JSON.parse(text) as Record<string, unknown>,
        // '' stands for a signature left to be computed: null, as StatementRow says it.
        signature: signatureText(row[3]) || null,
        stored: row[4] as string,
        keyId: row[5] as string,
        verbId: row[6] as string,
        registration: row[7] as string | null,
        voided: row[8] === 1,
        voidsStatementId: row[9] as string | null,
        targetStatementId: targets.get(seq) ?? null,
        terms: terms.get(seq) ?? [],
      };
      if (row[10] !== null) statement.received = JSON.parse(receivedText(row[10], text)!);
      const lrsAdded = lrsAddedNames(row[11]);
      if (lrsAdded !== undefined) statement.lrsAdded = lrsAdded;
      if (row[12] !== null) statement.warnings = JSON.parse(row[12] as string) as PortableStatement['warnings'];
      return statement;
    });
    yield { t: 'statements', storeId, rows: out };
    after = last;
  }
}

function* activities(sql: Sql, storeNum: number, storeId: string): Generator<PortableRecord> {
  let after = '';
  for (;;) {
    const rows = sql.all('SELECT activity_id, definition, updated FROM activities WHERE store_num = ? AND activity_id > ? ORDER BY activity_id LIMIT ?', [storeNum, after, BATCH]);
    if (rows.length === 0) return;
    yield {
      t: 'activities',
      storeId,
      activities: rows.map(([activityId, definition, updated]) => ({ activityId: activityId as string, definition: JSON.parse(definition as string) as Record<string, unknown>, updated: updated as string })),
    };
    after = rows[rows.length - 1]![0] as string;
  }
}

function* rejections(sql: Sql, storeNum: number, storeId: string, visibleSeq: number): Generator<PortableRecord> {
  let after = 0;
  for (;;) {
    const rows = sql.all(
      `SELECT seq, received_at, key_id, statement_id, payload, error, agent, verb_id, activity_id FROM rejections
        WHERE store_num = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      [storeNum, after, visibleSeq, BATCH],
    );
    if (rows.length === 0) return;
    yield {
      t: 'rejections',
      storeId,
      rows: rows.map((row) => ({
        receivedAt: row[1] as string,
        keyId: row[2] as string,
        statementId: row[3] as string | null,
        payload: JSON.parse(row[4] as string) as unknown,
        error: JSON.parse(row[5] as string) as { code: string; message: string },
        agent: row[6] as string | null,
        verbId: row[7] as string | null,
        activityId: row[8] as string | null,
      })),
    };
    after = rows[rows.length - 1]![0] as number;
  }
}

function* documents(sql: Sql, storeNum: number, storeId: string): Generator<PortableRecord> {
  const rows = sql.all(
    'SELECT kind, activity_id, agent, registration, doc_id, content_type, content, etag, updated FROM documents WHERE store_num = ? ORDER BY kind, activity_id, agent, registration, doc_id',
    [storeNum],
  );
  for (const row of rows) {
    const orNull = (value: unknown) => (value === '' ? null : (value as string));
    yield {
      t: 'document',
      storeId,
      key: { kind: row[0] as DocumentKind, activityId: orNull(row[1]), agent: orNull(row[2]), registration: orNull(row[3]), id: row[4] as string },
      document: { contentType: row[5] as string, content: new Uint8Array(row[6] as Uint8Array), etag: row[7] as string, updated: row[8] as string },
    };
  }
}

function* refusals(sql: Sql, storeNum: number, storeId: string | null): Generator<PortableRecord> {
  let after = 0;
  for (;;) {
    const rows = sql.all(
      `SELECT ${REFUSAL_COLUMNS} FROM refusals WHERE store_num = ? AND id > ? ORDER BY id LIMIT ?`,
      [storeNum, after, BATCH],
    );
    if (rows.length === 0) return;
    yield { t: 'refusals', rows: rows.map((row) => ({ ...refusalFields(toStoredRefusal(row, storeId)), storeId })) };
    after = rows[rows.length - 1]![0] as number;
  }
}
