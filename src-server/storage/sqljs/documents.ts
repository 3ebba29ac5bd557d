/**
 * Documents (State, Activity Profile, Agent Profile) in the embedded database: the table, its
 * journal operations, and the reads. One table holds all three kinds; the unique index on
 * (store, kind, activity, agent, registration, id) serves every lookup, list and delete, which
 * always name a prefix of it. Columns a kind does not use hold '' (not NULL) so that the unique
 * index also keys them.
 *
 * Content is stored as a BLOB, byte for byte as received (or as merged); in the journal it travels
 * in base64.
 */
import type { DocumentContent, DocumentKey, DocumentKind, DocumentSet, StoredDocument } from '../storage';
import type { Sql } from './sql';

/** Created at open when missing, so data directories from before documents existed open unchanged. */
const DOCUMENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  store_num INTEGER NOT NULL,
  kind TEXT NOT NULL,
  activity_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  registration TEXT NOT NULL,
  doc_id TEXT NOT NULL,
  content_type TEXT NOT NULL,
  content BLOB NOT NULL,
  etag TEXT NOT NULL,
  updated TEXT NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS documents_key ON documents (store_num, kind, activity_id, agent, registration, doc_id);
`;

export function ensureDocumentSchema(sql: Sql): void {
  sql.db.exec(DOCUMENTS_SCHEMA);
}

/** A set of documents as journaled: `registration` absent means any registration. */
interface DocumentOpSet {
  kind: DocumentKind;
  activityId: string | null;
  agent: string | null;
  registration?: string | null;
}

export type DocumentOp =
  | {
      t: 'upsertDocument';
      storeNum: number;
      key: DocumentKey;
      contentType: string;
      /** base64 */
      content: string;
      etag: string;
      updated: string;
    }
  /** Deletes the documents of `set`, or only the one with `id`. */
  | { t: 'deleteDocuments'; storeNum: number; set: DocumentOpSet; id?: string };

const UPSERT_SQL = `INSERT INTO documents (store_num, kind, activity_id, agent, registration, doc_id, content_type, content,
   etag, updated, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
 ON CONFLICT (store_num, kind, activity_id, agent, registration, doc_id) DO UPDATE SET
   content_type = excluded.content_type, content = excluded.content, etag = excluded.etag,
   updated = excluded.updated, updated_ms = excluded.updated_ms`;

/** Applies a document operation. The caller wraps it in a transaction. */
export function applyDocumentOp(sql: Sql, op: DocumentOp): void {
  if (op.t === 'upsertDocument') {
    const k = op.key;
    sql.run(UPSERT_SQL, [
      op.storeNum,
      k.kind,
      k.activityId ?? '',
      k.agent ?? '',
      k.registration ?? '',
      k.id,
      op.contentType,
      Buffer.from(op.content, 'base64'),
      op.etag,
      op.updated,
      Date.parse(op.updated),
    ]);
    return;
  }
  const where = whereSet(op.storeNum, op.set, op.id);
  sql.run(`DELETE FROM documents WHERE ${where.sql}`, where.params);
}

export function upsertDocumentOp(storeNum: number, key: DocumentKey, document: DocumentContent): DocumentOp {
  return {
    t: 'upsertDocument',
    storeNum,
    key: { kind: key.kind, activityId: key.activityId, agent: key.agent, registration: key.registration, id: key.id },
    contentType: document.contentType,
    content: Buffer.from(document.content).toString('base64'),
    etag: document.etag,
    updated: document.updated,
  };
}

export function deleteDocumentsOp(storeNum: number, set: DocumentSet | DocumentKey, id?: string): DocumentOp {
  const opSet: DocumentOpSet = { kind: set.kind, activityId: set.activityId, agent: set.agent };
  if (set.registration !== undefined) opSet.registration = set.registration;
  return id === undefined ? { t: 'deleteDocuments', storeNum, set: opSet } : { t: 'deleteDocuments', storeNum, set: opSet, id };
}

export function findDocumentRow(sql: Sql, storeNum: number, key: DocumentKey): StoredDocument | null {
  const where = whereSet(storeNum, key, key.id);
  const row = sql.first(`SELECT doc_id, content_type, content, etag, updated FROM documents WHERE ${where.sql}`, where.params);
  if (!row) return null;
  return {
    id: row[0] as string,
    contentType: row[1] as string,
    // sql.js hands back a view of its own memory for a BLOB: copy it.
    content: new Uint8Array(row[2] as Uint8Array),
    etag: row[3] as string,
    updated: row[4] as string,
  };
}

export function currentEtag(sql: Sql, storeNum: number, key: DocumentKey): string | null {
  const where = whereSet(storeNum, key, key.id);
  const row = sql.first(`SELECT etag FROM documents WHERE ${where.sql}`, where.params);
  return row ? (row[0] as string) : null;
}

export function listDocumentIdRows(sql: Sql, storeNum: number, set: DocumentSet): string[] {
  const where = whereSet(storeNum, set);
  let condition = where.sql;
  const params = where.params;
  if (set.since !== undefined) {
    condition += ' AND updated_ms > ?';
    params.push(Date.parse(set.since));
  }
  // One id may exist under several registrations when no registration is given.
  return sql.all(`SELECT DISTINCT doc_id FROM documents WHERE ${condition} ORDER BY doc_id`, params).map((row) => row[0] as string);
}

export function countDocumentRows(sql: Sql, storeNum: number, set: DocumentSet): number {
  const where = whereSet(storeNum, set);
  return sql.first(`SELECT count(*) FROM documents WHERE ${where.sql}`, where.params)![0] as number;
}

function whereSet(
  storeNum: number,
  set: Pick<DocumentSet, 'kind' | 'activityId' | 'agent' | 'registration'>,
  id?: string,
): { sql: string; params: Array<string | number> } {
  let sql = 'store_num = ? AND kind = ? AND activity_id = ? AND agent = ?';
  const params: Array<string | number> = [storeNum, set.kind, set.activityId ?? '', set.agent ?? ''];
  if (set.registration !== undefined) {
    sql += ' AND registration = ?';
    params.push(set.registration ?? '');
  }
  if (id !== undefined) {
    sql += ' AND doc_id = ?';
    params.push(id);
  }
  return { sql, params };
}
