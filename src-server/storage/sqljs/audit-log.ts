/**
 * The audit log in the embedded database: one service-wide table of admin actions, newest first
 * by id. Ids are decided when a write is planned (the table's last id + 1) and the pruning's bounds
 * too, so replay writes and deletes exactly the same rows. Pruned by age in chunks like the
 * rejected log (retention.ts), each chunk its own journaled operation.
 */
import { auditConditions, auditFields } from '../audit';
import type { AuditPage, AuditQuery, AuditRow, StoredAuditEntry } from '../audit';
import { PRUNE_CHUNK } from './retention';
import type { ApplyState } from './apply-state';
import type { Row, Sql } from './sql';

interface InsertAuditOp {
  t: 'insertAudit';
  row: AuditRow & { id: number };
}

interface PruneAuditOp {
  t: 'pruneAudit';
  /** Entries before this time (epoch ms) are due. */
  beforeMs: number;
  /** Only entries up to this id: the chunk's end. */
  maxId: number;
}

export type AuditOp = InsertAuditOp | PruneAuditOp;

export function ensureAuditTable(sql: Sql): void {
  sql.db.exec(`
    CREATE TABLE IF NOT EXISTS audit_log (
      id INTEGER PRIMARY KEY,
      at TEXT NOT NULL,
      at_ms INTEGER NOT NULL,
      action TEXT NOT NULL,
      outcome TEXT NOT NULL,
      store TEXT,
      target TEXT,
      actor TEXT NOT NULL,
      actor_detail TEXT,
      error_code TEXT,
      detail TEXT
    );
  `);
}

export function insertAuditOp(sql: Sql, row: AuditRow): InsertAuditOp {
  const [last] = sql.first('SELECT max(id) FROM audit_log')!;
  return { t: 'insertAudit', row: { id: ((last as number | null) ?? 0) + 1, ...auditFields(row) } };
}

export function applyAuditOp(state: ApplyState, op: AuditOp): void {
  const { sql } = state;
  if (op.t === 'pruneAudit') {
    sql.run('DELETE FROM audit_log WHERE id <= ? AND at_ms < ?', [op.maxId, op.beforeMs]);
    return;
  }
  const r = op.row;
  sql.run(
    `INSERT INTO audit_log (id, at, at_ms, action, outcome, store, target, actor, actor_detail, error_code, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [r.id, r.at, Date.parse(r.at), r.action, r.outcome, r.store, r.target, r.actor, r.actorDetail, r.errorCode, r.detail === null ? null : JSON.stringify(r.detail)],
  );
}

function toEntry(row: Row): StoredAuditEntry {
  return {
    id: row[0] as number,
    at: row[1] as string,
    action: row[2] as string,
    outcome: row[3] as StoredAuditEntry['outcome'],
    store: row[4] as string | null,
    target: row[5] as string | null,
    actor: row[6] as string,
    actorDetail: row[7] as string | null,
    errorCode: row[8] as string | null,
    detail: row[9] === null ? null : (JSON.parse(row[9] as string) as Record<string, unknown>),
  };
}

/** One page, newest first. The log is small (admin actions): the filters read it by id. */
export function listAuditRows(sql: Sql, query: AuditQuery): AuditPage {
  const conditions = auditConditions(query);
  const where = ['id < ?', ...conditions.map((c) => `${c.column} ${c.op} ?`)];
  const params = [query.beforeId ?? Number.MAX_SAFE_INTEGER, ...conditions.map((c) => c.value)];
  const rows = sql.all(
    `SELECT id, at, action, outcome, store, target, actor, actor_detail, error_code, detail
       FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
    [...params, query.limit + 1],
  );
  const entries = rows.slice(0, query.limit).map(toEntry);
  return { entries, nextBeforeId: rows.length > query.limit ? entries[entries.length - 1]!.id : null };
}

/** The next chunk of entries older than `beforeMs`, or null when none is due. */
export function planPruneAudit(sql: Sql, beforeMs: number): PruneAuditOp | null {
  const [maxId] = sql.first('SELECT max(id) FROM (SELECT id FROM audit_log WHERE at_ms < ? ORDER BY id LIMIT ?)', [beforeMs, PRUNE_CHUNK])!;
  return maxId === null ? null : { t: 'pruneAudit', beforeMs, maxId: maxId as number };
}

export function countAuditRows(sql: Sql, beforeMs: number): number {
  return sql.first('SELECT count(*) FROM audit_log WHERE at_ms < ?', [beforeMs])![0] as number;
}
