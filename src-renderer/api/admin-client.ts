/**
 * The console's one way to reach the service it manages. Two transports implement it: HTTP with
 * the admin token (the web console at /admin/) and the desktop bridge (IPC to the main process,
 * which forwards to the active connection). Features depend on this interface only; lint forbids
 * them to import a transport.
 */
import type { AdminInput, AdminOperationName, AdminOutput, ImportJobView, PackageView, RefusalEventView, StoreChangeView } from '../../src-server/admin/contract';

export type { AdminInput, AdminOperationName, AdminOutput, ImportJobView, PackageView, RefusalEventView, StoreChangeView };

/** Which deployment the console manages; the header always shows it. */
export interface ConnectionInfo {
  /** `web`: this page is served by the service itself; `local`/`remote`: the desktop app. */
  kind: 'web' | 'local' | 'remote';
  url: string;
  label: string;
}

export interface SubscribeOptions {
  /** Only events of this Store; every Store when absent. */
  store?: string;
  /** Told when the live stream connects or drops (the console shows "live" or "reconnecting"). */
  onConnectionChange?: (connected: boolean) => void;
  /** Told of each refused request logged (`event: refusal`), of this Store (or every log) as above. */
  onRefusal?: (event: RefusalEventView) => void;
}

/** Whether an event of `store` (null: the service's own) is for a subscriber with these options. */
export function wantsStore(options: SubscribeOptions, store: string | null): boolean {
  return !options.store || options.store === store;
}

export interface AdminClient {
  call<N extends AdminOperationName>(name: N, input: AdminInput<N>): Promise<AdminOutput<N>>;
  /**
   * Live news of the Stores: which Store's statements changed (coalesced, a few a second); returns
   * the function that unsubscribes. What a screen shows of that Store is asked again.
   */
  subscribe(listener: (change: StoreChangeView) => void, options?: SubscribeOptions): () => void;
  connection(): Promise<ConnectionInfo>;
  /**
   * Takes a backup of the database (POST /admin/api/backups) and saves the SQLite file: the
   * browser's download in the web console, a save dialog in the desktop app. Rejects with an
   * AdminError when the service refuses or cannot be reached.
   */
  downloadBackup(): Promise<BackupDownload>;
  /**
   * Imports a course package (its zip) into a Store for the Test Bench. Not a typed `call`: the
   * body is a file, not JSON. Rejects with an AdminError naming the problem.
   */
  importPackage(slug: string, zip: Blob): Promise<PackageView>;
  /**
   * Imports an NDJSON file of statements (one as stored per line, an export's format) into a Store,
   * streamed as the body; resolves with the import once the file is read. Not a typed `call`: the
   * body is a file. Both transports have it; a client without it (a stand-in) shows the pull only.
   */
  importStatementsFile?(slug: string, file: Blob, fileName: string): Promise<ImportJobView>;
  /** Opens a Test Bench launch URL: a new browser tab (web), a window of its own (desktop). */
  openLaunch(url: string): Promise<void>;
  /** Saves a Test Bench attempt's report (a download, or a save dialog in the desktop app). */
  saveAttemptReport(slug: string, registration: string, format: 'html' | 'json'): Promise<BackupDownload>;
  /**
   * Saves an export of a Store (GET /admin/api/stores/:slug/export): `query` is its query string,
   * the format and the Explorer's filters (features/explorer/explorer-url.ts, exportQuery).
   */
  saveExport(slug: string, query: string): Promise<BackupDownload>;
}

/** What "Download backup" did: saved as `name` (a file name, or the desktop app's path), or cancelled. */
export type BackupDownload = { saved: true; name: string } | { saved: false };

export interface AdminErrorFields {
  status: number;
  code: string;
  message: string;
  field?: string;
  statementIndex?: number;
}

/** An admin API error in the shape of docs/design.md ("Errors"); status 0 when the service is unreachable. */
export class AdminError extends Error implements AdminErrorFields {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  readonly statementIndex?: number;

  constructor(fields: AdminErrorFields) {
    super(fields.message);
    this.name = 'AdminError';
    this.status = fields.status;
    this.code = fields.code;
    if (fields.field !== undefined) this.field = fields.field;
    if (fields.statementIndex !== undefined) this.statementIndex = fields.statementIndex;
  }
}

/** The error of a failed call as the UI shows it, whatever was thrown. */
export function toAdminError(error: unknown): AdminError {
  if (error instanceof AdminError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new AdminError({ status: 0, code: 'unexpected', message });
}
