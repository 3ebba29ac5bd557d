/**
 * The audit log's rows as every backend stores them: one admin action (src-server/admin/audit-log.ts
 * decides what is recorded), service-wide, kept by time (a year by default) rather than by count.
 */

export interface AuditRow {
  /** ISO 8601 time of the action's answer. */
  at: string;
  /** What was done: `store.create`, `key.rotate`, `statements.export`… (docs/audit.md). */
  action: string;
  outcome: 'succeeded' | 'failed';
  /** The Store's slug (kept as text: a deleted Store's entries stay readable). */
  store: string | null;
  /** What in the Store it was on: a key's id, a package's id. Never a secret. */
  target: string | null;
  /** `admin token` or `desktop app`. */
  actor: string;
  /** The HTTP client's address, the desktop user's name. */
  actorDetail: string | null;
  /** A failed action's error code. */
  errorCode: string | null;
  /** More of what the action said: plain JSON, never a secret. */
  detail: Record<string, unknown> | null;
}

export interface StoredAuditEntry extends AuditRow {
  /** Increasing in the order entries were written: the cursor. */
  id: number;
}

export interface AuditQuery {
  store?: string;
  action?: string;
  /** ISO 8601: entries at or after it. */
  since?: string;
  limit: number;
  /** Newest first; continue below this id (exclusive). */
  beforeId?: number;
}

export interface AuditPage {
  entries: StoredAuditEntry[];
  nextBeforeId: number | null;
}

/** How long the audit log keeps an entry by default. */
export const AUDIT_RETENTION_DAYS = 365;

/** Exactly the row's fields: nothing else a caller attached reaches the storage. */
export function auditFields(row: AuditRow): AuditRow {
  return {
    at: row.at,
    action: row.action,
    outcome: row.outcome,
    store: row.store,
    target: row.target,
    actor: row.actor,
    actorDetail: row.actorDetail,
    errorCode: row.errorCode,
    detail: row.detail,
  };
}

/** The query's filters as column conditions, the same on every backend (each writes its placeholders). */
export function auditConditions(query: AuditQuery): Array<{ column: 'store' | 'action' | 'at_ms'; op: '=' | '>='; value: string | number }> {
  const conditions: ReturnType<typeof auditConditions> = [];
  if (query.store !== undefined) conditions.push({ column: 'store', op: '=', value: query.store });
  if (query.action !== undefined) conditions.push({ column: 'action', op: '=', value: query.action });
  if (query.since !== undefined) conditions.push({ column: 'at_ms', op: '>=', value: Date.parse(query.since) });
  return conditions;
}
