/**
 * Documents (State, Activity Profile, Agent Profile) in PostgreSQL. One table holds the three
 * kinds; its primary key (store, kind, activity, agent, registration, id) serves every lookup,
 * list and delete, which always name a prefix of it. Columns a kind does not use hold ''.
 *
 * A conditional write (If-Match / If-None-Match, decided by the caller as "the current etag is
 * still X") updates the row only where its etag is still X (the row's lock makes a second writer
 * wait and then see the first one's etag) or, when there is none, inserts with ON CONFLICT DO
 * NOTHING: of two writers with the same precondition, one wins and the other is told the document
 * changed (412), across processes.
 */
import type { DocumentContent, DocumentKey, DocumentSet, StoredDocument } from '../storage';
import { StorageNotFoundError } from '../errors';
import type { PostgresDatabase, Tx } from './database';

function whereSet(
  storeNum: number,
  set: Pick<DocumentSet, 'kind' | 'activityId' | 'agent' | 'registration'>,
  id?: string,
): { sql: string; values: unknown[] } {
  let sql = 'store_num = $1 AND kind = $2 AND activity_id = $3 AND agent = $4';
  const values: unknown[] = [storeNum, set.kind, set.activityId ?? '', set.agent ?? ''];
  if (set.registration !== undefined) {
    values.push(set.registration ?? '');
    sql += ` AND registration = $${values.length}`;
  }
  if (id !== undefined) {
    values.push(id);
    sql += ` AND doc_id = $${values.length}`;
  }
  return { sql, values };
}

export async function findDocumentRow(db: PostgresDatabase, storeNum: number, key: DocumentKey): Promise<StoredDocument | null> {
  const where = whereSet(storeNum, key, key.id);
  // Prepared: a State document is read on every GET and before every write, and its lookup (the
  // primary key) costs the server less than planning it. Two texts: with a registration or without.
  const [row] = await db.prepared<{ doc_id: string; content_type: string; content: Buffer; etag: string; updated: string }>(
    `SELECT doc_id, content_type, content, etag, updated FROM documents WHERE ${where.sql}`,
    where.values,
  );
  if (!row) return null;
  return { id: row.doc_id, contentType: row.content_type, content: new Uint8Array(row.content), etag: row.etag, updated: row.updated };
}

export async function listDocumentIdRows(db: PostgresDatabase, storeNum: number, set: DocumentSet): Promise<string[]> {
  const where = whereSet(storeNum, set);
  let condition = where.sql;
  if (set.since !== undefined) {
    where.values.push(Date.parse(set.since));
    condition += ` AND updated_ms > $${where.values.length}`;
  }
  // One id may exist under several registrations when no registration is given.
  // Prepared as the lookup above: four texts (with or without a registration, and `since`), each a walk of a primary key prefix.
  const rows = await db.prepared<{ doc_id: string }>(`SELECT doc_id FROM documents WHERE ${condition} GROUP BY doc_id ORDER BY doc_id COLLATE "C"`, where.values);
  return rows.map((row) => row.doc_id);
}

/**
 * The Store's row FOR SHARE (an erasure or a deletion of the Store waits, as for any write of it)
 * and the number of documents a statement wrote, as each statement below answers them.
 */
const STORE_LOCK = 'WITH s AS (SELECT num FROM stores WHERE id = $1 FOR SHARE)';
const COUNTS = 'SELECT (SELECT count(*) FROM s)::int AS stores, (SELECT count(*) FROM written)::int AS written';
const KEY_MATCH = 'd.store_num = s.num AND d.kind = $2 AND d.activity_id = $3 AND d.agent = $4 AND d.registration = $5 AND d.doc_id = $6';

/** Replaces a document whose etag is $7; the row's lock decides between two writers. */
const REPLACE_DOCUMENT = `${STORE_LOCK}, written AS (
  UPDATE documents AS d SET content_type = $8, content = $9, etag = $10, updated = $11, updated_ms = $12
    FROM s WHERE ${KEY_MATCH} AND d.etag = $7 RETURNING 1)
${COUNTS}`;

/** Inserts a document where there is none; the primary key decides between two writers that both saw none. */
const INSERT_DOCUMENT = `${STORE_LOCK}, written AS (
  INSERT INTO documents (store_num, kind, activity_id, agent, registration, doc_id, content_type, content, etag, updated, updated_ms)
  SELECT s.num, $2, $3, $4, $5, $6, $7::text, $8::bytea, $9::text, $10::text, $11::bigint FROM s ON CONFLICT DO NOTHING RETURNING 1)
${COUNTS}`;

/** Deletes a document, only if its etag is $7 when $7 is given. */
const DELETE_DOCUMENT = `${STORE_LOCK}, written AS (
  DELETE FROM documents AS d USING s WHERE ${KEY_MATCH} AND ($7::text IS NULL OR d.etag = $7) RETURNING 1)
${COUNTS}`;

function keyValues(storeId: string, key: DocumentKey): unknown[] {
  return [storeId, key.kind, key.activityId ?? '', key.agent ?? '', key.registration ?? '', key.id];
}

/** Whether the statement wrote its document; a Store that does not exist is an error, as for any write. */
async function wroteOne(db: PostgresDatabase, storeId: string, text: string, values: unknown[], beforeCommit?: () => Promise<void>): Promise<boolean> {
  const [counts] = await db.statement<{ stores: number; written: number }>(text, values, beforeCommit);
  if (!counts || counts.stores === 0) throw new StorageNotFoundError('store_not_found', `no Store with id ${storeId}`);
  return counts.written === 1;
}

/**
 * Writes the document if its current etag is `ifCurrent` (null: there is none); false otherwise.
 * One statement, committed by the server as it answers: a State write is frequent (content saves
 * its place with it), and BEGIN, the Store's lock, the row's lock and COMMIT were four more round
 * trips.
 */
export function upsertDocumentRow(
  db: PostgresDatabase,
  storeId: string,
  key: DocumentKey,
  document: DocumentContent,
  ifCurrent: string | null,
  beforeCommit?: () => Promise<void>,
): Promise<boolean> {
  const content = [document.contentType, Buffer.from(document.content), document.etag, document.updated, Date.parse(document.updated)];
  return ifCurrent === null
    ? wroteOne(db, storeId, INSERT_DOCUMENT, [...keyValues(storeId, key), ...content], beforeCommit)
    : wroteOne(db, storeId, REPLACE_DOCUMENT, [...keyValues(storeId, key), ifCurrent, ...content], beforeCommit);
}

/** Deletes one document; with `ifCurrent`, only if its etag is that. False when nothing was deleted. */
export function deleteDocumentRow(db: PostgresDatabase, storeId: string, key: DocumentKey, ifCurrent?: string, beforeCommit?: () => Promise<void>): Promise<boolean> {
  return wroteOne(db, storeId, DELETE_DOCUMENT, [...keyValues(storeId, key), ifCurrent ?? null], beforeCommit);
}

export async function deleteDocumentRows(tx: Tx, storeNum: number, set: DocumentSet): Promise<number> {
  const where = whereSet(storeNum, set);
  const { rowCount } = await tx.query(`DELETE FROM documents WHERE ${where.sql}`, where.values);
  return rowCount ?? 0;
}
