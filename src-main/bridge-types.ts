/**
 * The contract between the preload script and the renderer.
 *
 * This file is imported by three programs: the main process (Node types), the preload script
 * (sandboxed) and the renderer (DOM types, `import type` only). Keep it free of runtime imports so
 * that it type-checks and bundles everywhere.
 */

import type { AdminInput, AdminOperationName, AdminOutput, StoreChangeView, RefusalEventView } from '../src-server/admin/contract';
import type { DesktopInput, DesktopOperationName, DesktopPreferences, LocalSettings } from './desktop-contract';

/** The one IPC channel of this issue: `invoke` asks for the status, `send` pushes changes. */
export const SERVICE_STATUS_CHANNEL = 'lore:service-status';
/** `invoke({name, input})`: one admin API operation, forwarded by main to the active connection. */
export const ADMIN_CHANNEL = 'lore:admin';
/** `send`: each live event of the active connection's /admin/api/events. */
export const ADMIN_EVENT_CHANNEL = 'lore:admin-event';
/** `send`: each refused request logged by the active connection (`event: refusal` of /admin/api/events). */
export const ADMIN_REFUSAL_CHANNEL = 'lore:admin-refusal';
/** `invoke` asks which deployment is managed; `send` pushes a switch. */
export const CONNECTION_CHANNEL = 'lore:connection';
/** invoke: whether the active connection's live stream is up; push: each time that changes. */
export const ADMIN_STREAM_CHANNEL = 'lore:admin-stream';
/** `invoke({name, input})`: one desktop operation (desktop-contract.ts). */
export const DESKTOP_CHANNEL = 'lore:desktop';
/** `invoke()`: takes a backup of the active connection and saves it where the user chooses. */
export const BACKUP_CHANNEL = 'lore:backup';
/** `invoke({slug, bytes})`: imports a course package (a zip) into a Store of the active connection. */
export const PACKAGE_CHANNEL = 'lore:package';
/** An NDJSON file of statements imported into a Store (import-bridge.ts). */
export const IMPORT_FILE_CHANNEL = 'lore:import-file';
/** `invoke(url)`: opens a Test Bench launch URL in a window of its own. */
export const LAUNCH_CHANNEL = 'lore:launch';
/** `invoke({slug, registration, format})`: saves a Test Bench attempt's report where the user chooses. */
export const REPORT_CHANNEL = 'lore:report';
/** `invoke({slug, query})`: saves an export of what an Explorer filter shows where the user chooses. */
export const EXPORT_CHANNEL = 'lore:export';

type ServiceState =
  /** Not started yet, or stopped on purpose (app quitting). */
  | 'stopped'
  /** A process was spawned; it has not said it listens yet. */
  | 'starting'
  /** The service listens at `url`. */
  | 'running'
  /** The process exited unexpectedly; another start is scheduled. */
  | 'restarting'
  /** Too many quick crashes in a row, or the service reported it could not start: given up. */
  | 'failed';

export interface ServiceStatus {
  state: ServiceState;
  /** OS process id of the running service, when known. */
  pid?: number;
  /** When `state` is `running`: where the service listens, e.g. http://127.0.0.1:8411 */
  url?: string;
  /** Restarts since the supervisor started (not reset by a stable run). */
  restarts: number;
  /** Exit code of the last unexpected exit. */
  lastExitCode?: number | null;
  /** When `state` is `restarting`: milliseconds until the next attempt. */
  retryInMs?: number;
  /** A sentence for the user when something is wrong. */
  message?: string;
}

/** What the preload exposes as `window.lore`. */
export interface LoreBridge extends LoreDesktopBridge {
  serviceStatus(): Promise<ServiceStatus>;
  /** Calls `listener` on every status change; returns the function that unsubscribes. */
  onServiceStatus(listener: (status: ServiceStatus) => void): () => void;
  /**
   * Performs one admin API operation on the active connection (local service or remote
   * deployment). Resolves with the outcome rather than rejecting: an Error thrown across IPC
   * loses its fields, and the console needs `status`, `code` and `field` to show what went wrong.
   */
  admin<N extends AdminOperationName>(name: N, input: AdminInput<N>): Promise<AdminBridgeResult<AdminOutput<N>>>;
  /** Relays the active connection's live events (/admin/api/events); returns the unsubscribe. */
  onAdminEvent(listener: (event: StoreChangeView) => void): () => void;
  /** Relays the active connection's refused-request events; returns the unsubscribe. */
  onAdminRefusal(listener: (event: RefusalEventView) => void): () => void;
  /** Whether the main process's live stream of the active connection is up now. */
  adminStream(): Promise<boolean>;
  /** Calls `listener` when that stream comes up or goes down; returns the unsubscribe. */
  onAdminStream(listener: (connected: boolean) => void): () => void;
  /** Which deployment the console is managing now. */
  connection(): Promise<ConnectionDescription>;
  /**
   * Takes a backup of the active connection (POST /admin/api/backups), asks where to save it and
   * writes the SQLite file there. A cancelled dialog resolves `{ok: false}` with code `canceled`.
   */
  saveBackup(): Promise<SaveBackupResult>;
  /** Imports a course package (the zip's bytes) into a Store of the active connection (Test Bench). */
  importPackage(slug: string, bytes: ArrayBuffer): Promise<AdminBridgeResult<unknown>>;
  /** Imports an NDJSON file of statements (its bytes) into a Store of the active connection; resolves with the import. */
  importStatementsFile(slug: string, bytes: ArrayBuffer, fileName: string): Promise<AdminBridgeResult<unknown>>;
  /** Opens a launch URL of the active connection's service in a window of its own. */
  openLaunch(url: string): Promise<AdminBridgeResult<null>>;
  /** Saves an attempt's report (html or json); resolves with the path, or code `canceled`. */
  saveAttemptReport(slug: string, registration: string, format: 'html' | 'json'): Promise<AdminBridgeResult<string>>;
  /** Saves an export (`query`: format and the Explorer's filters, as a query string); resolves with the path, or code `canceled`. */
  saveExport(slug: string, query: string): Promise<AdminBridgeResult<string>>;
}

export type SaveBackupResult = { ok: true; path: string } | { ok: false; error: AdminBridgeError };

/** What the console shows about the deployment it manages ("Local service", "Remote: https://…"). */
export interface ConnectionDescription {
  kind: 'local' | 'remote';
  /** Base URL of the service, e.g. http://127.0.0.1:8411 */
  url: string;
  /** A short human name for the header, e.g. "Local service" or the remote profile's name. */
  label: string;
}

/** The admin API's error body (docs/design.md, "Errors"), or a transport failure (status 0, code `unreachable`). */
export interface AdminBridgeError {
  status: number;
  code: string;
  message: string;
  field?: string;
  statementIndex?: number;
}

export type AdminBridgeResult<T> = { ok: true; value: T } | { ok: false; error: AdminBridgeError };

/** The desktop app's own operations (Connection screen); see desktop-contract.ts. */
interface LoreDesktopBridge {
  /** Performs one desktop operation; resolves with the outcome, like `admin`. */
  desktop<N extends DesktopOperationName>(name: N, input: DesktopInput<N>): Promise<AdminBridgeResult<DesktopState>>;
  /** Calls `listener` when the managed deployment changes (switched, or the local URL moved). */
  onConnection(listener: (connection: ConnectionDescription) => void): () => void;
}

/** A saved connection, as the renderer may see it: never its token. */
export interface ConnectionProfileView {
  /** `local`, or the remote profile's id. */
  id: string;
  kind: 'local' | 'remote';
  label: string;
  url: string;
  active: boolean;
}

/** What the Connection screen shows. */
export interface DesktopState {
  connection: ConnectionDescription;
  profiles: ConnectionProfileView[];
  local: {
    /** Saved settings: what the next (re)start uses. */
    settings: LocalSettings;
    /** The settings the running service was started with; null when none runs. */
    applied: LocalSettings | null;
    /** True when saved settings differ from the running service's: a restart applies them. */
    restartNeeded: boolean;
    dataDir: string;
    status: ServiceStatus;
    /** What the last repair (local.repair) did, in plain words; null when none ran. */
    lastRepair: string | null;
  };
  preferences: DesktopPreferences;
  /** False when the system offers no encrypted storage: remote tokens cannot be saved. */
  secureStorage: boolean;
}
