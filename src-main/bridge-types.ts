/**
 * The contract between the preload script and the renderer.
 *
 * This file is imported by three programs: the main process (Node types), the preload script
 * (sandboxed) and the renderer (DOM types, `import type` only). Keep it free of runtime imports so
 * that it type-checks and bundles everywhere.
 */

/** The one IPC channel of this issue: `invoke` asks for the status, `send` pushes changes. */
export const SERVICE_STATUS_CHANNEL = 'lore:service-status';

export type ServiceState =
  /** Not started yet, or stopped on purpose (app quitting). */
  | 'stopped'
  /** A process was spawned; it has not exited. */
  | 'running'
  /** The process exited unexpectedly; another start is scheduled. */
  | 'restarting'
  /** Too many quick crashes in a row: the supervisor gave up. */
  | 'failed';

export interface ServiceStatus {
  state: ServiceState;
  /** OS process id of the running service, when known. */
  pid?: number;
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
export interface LoreBridge {
  serviceStatus(): Promise<ServiceStatus>;
  /** Calls `listener` on every status change; returns the function that unsubscribes. */
  onServiceStatus(listener: (status: ServiceStatus) => void): () => void;
}
