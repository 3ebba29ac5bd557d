/**
 * The audit log in PostgreSQL: one service-wide table of admin actions, newest first by id, pruned
 * by age in chunks (each its own short statement), by whichever process's round comes first.
 */
import { auditConditions, auditFields } from '../audit';
import type { AuditPage, AuditQuery, AuditRow, StoredAuditEntry } from '../audit';
import type { PostgresDatabase } from './database';

const PRUNE_CHUNK = 5_000;

type AuditDbRow = AuditRow & { id: string | number };

const COLUMNS = 'id, at, action, outcome, store, target, actor, actor_detail AS "actorDetail", error_code AS "errorCode", detail';

function toEntry(row: AuditDbRow): StoredAuditEntry {
  return { id: Number(row.id), ...auditFields(row) };
}

export async function insertAuditRow(db: PostgresDatabase, row: AuditRow): Promise<StoredAuditEntry> {
  const r = auditFields(row);
  const [inserted] = await db.query<AuditDbRow>(
    `INSERT INTO audit_log (at, at_ms, action, outcome, store, target, actor, actor_detail, error_code, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [r.at, Date.parse(r.at), r.action, r.outcome, r.store, r.target, r.actor, r.actorDetail, r.errorCode, r.detail === null ? null : JSON.stringify(r.detail)],
  );
  return toEntry(inserted!);
}

export async function listAuditRows(db: PostgresDatabase, query: AuditQuery): Promise<AuditPage> {
  const conditions = auditConditions(query);
  const where = ['id < $1', ...conditions.map((c, i) => `${c.column} ${c.op} $${i + 2}`)];
  const params: unknown[] = [query.beforeId ?? Number.MAX_SAFE_INTEGER, ...conditions.map((c) => c.value)];
  params.push(query.limit + 1);
  const rows = await db.query<AuditDbRow>(`SELECT ${COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${params.length}`, params);
  const entries = rows.slice(0, query.limit).map(toEntry);
  return { entries, nextBeforeId: rows.length > query.limit ? entries[entries.length - 1]!.id : null };
}

export async function pruneAuditRows(db: PostgresDatabase, beforeMs: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at_ms < $1 ORDER BY id LIMIT $2) RETURNING 1`,
      [beforeMs, PRUNE_CHUNK],
    );
    deleted += rows.length;
    if (rows.length < PRUNE_CHUNK) return deleted;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
