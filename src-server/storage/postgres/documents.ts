/**
 * Documents (State, Activity Profile, Agent Profile) in PostgreSQL. One table holds the three
 * kinds; its primary key (store, kind, activity, agent, registration, id) serves every lookup,
 * list and delete, which always name a prefix of it. Columns a kind does not use hold ''.
 *
 * A conditional write (If-Match / If-None-Match, decided by the caller as "the current etag is
 * still X") locks the row it compares (FOR UPDATE) or, when there is none, inserts with ON
 * CONFLICT DO NOTHING: of two writers with the same precondition, one wins and the other is told
 * the document changed (412), across processes.
 */
import type { DocumentContent, DocumentKey, DocumentSet, StoredDocument } from '../storage';
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
  const [row] = await db.query<{ doc_id: string; content_type: string; content: Buffer; etag: string; updated: string }>(
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
  const rows = await db.query<{ doc_id: string }>(`SELECT doc_id FROM documents WHERE ${condition} GROUP BY doc_id ORDER BY doc_id COLLATE "C"`, where.values);
  return rows.map((row) => row.doc_id);
}

/** The current etag, locking the row until the transaction ends; null when there is none. */
async function lockedEtag(tx: Tx, storeNum: number, key: DocumentKey): Promise<string | null> {
  const where = whereSet(storeNum, key, key.id);
  const { rows } = await tx.query<{ etag: string }>(`SELECT etag FROM documents WHERE ${where.sql} FOR UPDATE`, where.values);
  return rows[0]?.etag ?? null;
}

/** Writes the document if its current etag is `ifCurrent` (null: there is none); false otherwise. */
export async function upsertDocumentRow(tx: Tx, storeNum: number, key: DocumentKey, document: DocumentContent, ifCurrent: string | null): Promise<boolean> {
  const current = await lockedEtag(tx, storeNum, key);
  if (current !== ifCurrent) return false;
  const values = [
    storeNum,
    key.kind,
    key.activityId ?? '',
    key.agent ?? '',
    key.registration ?? '',
    key.id,
    document.contentType,
    Buffer.from(document.content),
    document.etag,
    document.updated,
    Date.parse(document.updated),
  ];
  if (current !== null) {
    await tx.query(
      `UPDATE documents SET content_type = $7, content = $8, etag = $9, updated = $10, updated_ms = $11
        WHERE store_num = $1 AND kind = $2 AND activity_id = $3 AND agent = $4 AND registration = $5 AND doc_id = $6`,
      values,
    );
    return true;
  }
  // No row to lock: the primary key decides between two writers that both saw none.
  const { rowCount } = await tx.query(
    `INSERT INTO documents (store_num, kind, activity_id, agent, registration, doc_id, content_type, content, etag, updated, updated_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
    values,
  );
  return rowCount === 1;
}

/** Deletes one document; with `ifCurrent`, only if its etag is that. False when nothing was deleted. */
export async function deleteDocumentRow(tx: Tx, storeNum: number, key: DocumentKey, ifCurrent?: string): Promise<boolean> {
  const current = await lockedEtag(tx, storeNum, key);
  if (current === null || (ifCurrent !== undefined && current !== ifCurrent)) return false;
  const where = whereSet(storeNum, key, key.id);
  await tx.query(`DELETE FROM documents WHERE ${where.sql}`, where.values);
  return true;
}

export async function deleteDocumentRows(tx: Tx, storeNum: number, set: DocumentSet): Promise<number> {
  const where = whereSet(storeNum, set);
  const { rowCount } = await tx.query(`DELETE FROM documents WHERE ${where.sql}`, where.values);
  return rowCount ?? 0;
}
