/**
 * The audit log: every admin action (a Store created, renamed, emptied, deleted; a key created,
 * rotated, revoked; an export, a backup…) with its time, who did it, what it was on and its outcome,
 * refused ones too. One object per service; the admin routes reach it through one call, `record`
 * (docs/audit.md lists the actions). The HTTP layer records each route's action by itself
 * (http/plugins/audit-trail.ts); a module doing an action outside a route calls `record` directly.
 *
 * Never a secret: callers pass ids and labels (a key's id and name, never its secret), and the
 * `detail` they pass is kept as given, so it must be chosen field by field.
 *
 * Recording never fails the action: a storage error (full, stopping) is written to the service log.
 * Entries older than `retentionDays` (365 by default) are pruned in small steps, soon after start
 * and then every `pruneIntervalMs`.
 */
import { AUDIT_RETENTION_DAYS } from '../storage/audit';
import type { AuditRow, StoredAuditEntry } from '../storage/audit';
import type { Storage } from '../storage/storage';
import type { AuditAction, AuditPageView, AuditQueryInput } from './contract';

const DAY_MS = 24 * 60 * 60_000;

/**
 * Who did it: the holder of the admin token over HTTP (with its address), the desktop app (with
 * its OS user), a command run on the data directory (`npm run restore`, with its OS user), or the
 * service itself finishing what an admin started (an import's end).
 */
export interface AuditActor {
  actor: 'admin token' | 'desktop app' | 'command line' | 'service';
  detail: string | null;
}

export interface AuditRecordInput {
  /** `store.create`, `key.rotate`, `statements.export`… (AUDIT_ACTIONS; a module adding one adds it there). */
  action: AuditAction;
  outcome: 'succeeded' | 'failed';
  /** The Store's slug. */
  store?: string | null;
  /** What in the Store: a key's id, a package's id. */
  target?: string | null;
  /** A failed action's error code (`confirmation_required`, `store_not_found`…). */
  errorCode?: string | null;
  /** More of what was done, field by field: never a secret. */
  detail?: Record<string, unknown> | null;
  actor: AuditActor;
  /** Default: now. */
  at?: string;
}

export interface AuditLogOptions {
  retentionDays?: number;
  /** How often entries past retention are pruned. Default 6 hours. */
  pruneIntervalMs?: number;
  log?: (message: string) => void;
}

export class AuditLog {
  private readonly retentionDays: number;
  private readonly log: (message: string) => void;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly options: AuditLogOptions = {},
  ) {
    this.retentionDays = options.retentionDays ?? AUDIT_RETENTION_DAYS;
    this.log = options.log ?? (() => {});
  }

  /** Writes one entry; resolves with it, or null when it could not be written (logged). */
  async record(input: AuditRecordInput): Promise<StoredAuditEntry | null> {
    const row: AuditRow = {
      at: input.at ?? new Date().toISOString(),
      action: input.action,
      outcome: input.outcome,
      store: input.store ?? null,
      target: input.target ?? null,
      actor: input.actor.actor,
      actorDetail: input.actor.detail,
      errorCode: input.errorCode ?? null,
      detail: input.detail ?? null,
    };
    const written = this.storage.insertAuditEntry(row).catch((err: unknown) => {
      this.log(`could not write the audit entry of ${row.action} (${row.outcome}): ${String(err)}`);
      return null;
    });
    this.writing = Promise.all([this.writing, written]);
    return written;
  }

  /** Resolves once every entry recorded so far is written: before the storage closes. */
  async settled(): Promise<void> {
    await this.writing;
  }

  async list(input: AuditQueryInput): Promise<AuditPageView> {
    const page = await this.storage.listAuditEntries({
      store: input.store,
      action: input.action,
      since: input.since === undefined ? undefined : new Date(input.since).toISOString(),
      limit: input.limit,
      beforeId: input.cursor === undefined ? undefined : Number(input.cursor),
    });
    return { entries: page.entries, next: page.nextBeforeId === null ? null : String(page.nextBeforeId) };
  }

  /** Deletes the entries past retention; resolves how many. */
  prune(nowMs: number = Date.now()): Promise<number> {
    return this.storage.pruneAuditEntries(nowMs - this.retentionDays * DAY_MS);
  }

  /** Prunes soon after the call and then periodically; returns the stop. */
  schedulePruning(): () => void {
    let running = false;
    const tick = () => {
      if (running) return;
      running = true;
      void this.prune()
        .catch((err: unknown) => this.log(`could not prune the audit log: ${String(err)}`))
        .finally(() => (running = false));
    };
    const first = setTimeout(tick, 1_000);
    const timer = setInterval(tick, this.options.pruneIntervalMs ?? 6 * 60 * 60_000);
    first.unref();
    timer.unref();
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }
}
