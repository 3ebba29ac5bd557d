/**
 * Keeps the local LRS service running beside the window.
 *
 * Pure logic: the process is started through an injected `spawn`, so the rules (restart with
 * backoff, give up after repeated quick crashes, stop cleanly on quit) are tested without
 * Electron. index.ts injects Electron's utilityProcess.
 *
 * A spawned process is `starting` until it reports `{type: 'ready', url}` (src-server/
 * service-process.ts): only then does anything talk to it. A process that reports
 * `{type: 'failed', message}` failed on its own terms (port taken, data directory locked, bad
 * setting): retrying the same settings would fail the same way, so the supervisor stops at
 * `failed` with the service's sentence, and the user changes the settings and starts again.
 */
import type { ServiceStatus } from './bridge-types';

/** One running service process, as the supervisor sees it. */
export interface ServiceChild {
  readonly pid?: number | undefined;
  /** Registers the listener for the process's exit. Called once per child. */
  onExit(listener: (code: number | null) => void): void;
  /** Registers the listener for the process's messages (`ready`, `failed`). Called once per child. */
  onMessage(listener: (message: unknown) => void): void;
  /** Asks the service to finish (flush its journal, write a snapshot) and exit. */
  requestStop(): void;
  /** Ends the process now. */
  kill(): void;
}

type SpawnService = () => ServiceChild;

export interface SupervisorOptions {
  spawn: SpawnService;
  /** Delay before the first restart; doubles with each quick crash in a row. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A process that ran at least this long was healthy: its crash starts a new series. */
  stableAfterMs?: number;
  /** After this many quick crashes in a row the supervisor stops trying. */
  maxQuickCrashes?: number;
  /** How long stop() waits for a graceful exit before killing, and again after killing. */
  stopTimeoutMs?: number;
  log?: (message: string) => void;
}

export interface ServiceSupervisor {
  /** Starts the service; also the manual retry after `failed`. No-op while running. */
  start(): void;
  /** Stops the service and any scheduled restart; resolves once the process is gone. */
  stop(): Promise<void>;
  /** Stops, then starts with whatever `spawn` reads now (new port, new address). */
  restart(): Promise<void>;
  status(): ServiceStatus;
  /** Calls `listener` on every status change; returns the function that unsubscribes. */
  onStatus(listener: (status: ServiceStatus) => void): () => void;
}

const SUPERVISOR_DEFAULTS = {
  initialBackoffMs: 500,
  maxBackoffMs: 30_000,
  stableAfterMs: 10_000,
  maxQuickCrashes: 5,
  stopTimeoutMs: 5_000,
} as const;

/** What a service process tells its parent (src-server/service/service-process.ts). */
type ServiceMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string };

function parseServiceMessage(message: unknown): ServiceMessage | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, url, message: text } = message as Record<string, unknown>;
  if (type === 'ready' && typeof url === 'string' && /^https?:\/\//.test(url)) return { type, url };
  if (type === 'failed' && typeof text === 'string') return { type, message: text };
  return undefined;
}

/** The delay before restart number `quickCrashes` of a series (1-based): 500, 1000, 2000, … */
export function backoffDelay(quickCrashes: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, quickCrashes - 1));
}

export function createServiceSupervisor(options: SupervisorOptions): ServiceSupervisor {
  const { spawn, log = () => {} } = options;
  const initialBackoffMs = options.initialBackoffMs ?? SUPERVISOR_DEFAULTS.initialBackoffMs;
  const maxBackoffMs = options.maxBackoffMs ?? SUPERVISOR_DEFAULTS.maxBackoffMs;
  const stableAfterMs = options.stableAfterMs ?? SUPERVISOR_DEFAULTS.stableAfterMs;
  const maxQuickCrashes = options.maxQuickCrashes ?? SUPERVISOR_DEFAULTS.maxQuickCrashes;
  const stopTimeoutMs = options.stopTimeoutMs ?? SUPERVISOR_DEFAULTS.stopTimeoutMs;

  const listeners = new Set<(status: ServiceStatus) => void>();
  let current: ServiceStatus = { state: 'stopped', restarts: 0 };
  let child: ServiceChild | undefined;
  let startedAt = 0;
  let quickCrashes = 0;
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let stopping: Promise<void> | undefined;
  // Set synchronously when stop() begins: a child may exit inside requestStop() itself.
  let stopRequested = false;
  let notifyStopped: (() => void) | undefined;
  // The service's own account of why it could not start; turns its exit into `failed`.
  let reportedFailure: string | undefined;

  function setStatus(next: ServiceStatus): void {
    current = next;
    for (const listener of listeners) {
      try {
        listener({ ...next });
      } catch (error) {
        log(`service status listener failed: ${String(error)}`);
      }
    }
  }

  function launch(): void {
    startedAt = Date.now();
    let spawned: ServiceChild;
    try {
      spawned = spawn();
    } catch (error) {
      // A spawn that throws is a crash that happened before the process existed.
      child = undefined;
      handleCrash(null, `could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    child = spawned;
    reportedFailure = undefined;
    spawned.onExit((code) => onChildExit(spawned, code));
    spawned.onMessage((message) => onChildMessage(spawned, message));
    setStatus({ state: 'starting', restarts: current.restarts, ...(spawned.pid !== undefined && { pid: spawned.pid }) });
  }

  function onChildMessage(from: ServiceChild, raw: unknown): void {
    if (from !== child) return;
    const message = parseServiceMessage(raw);
    if (!message) return;
    if (message.type === 'failed') {
      reportedFailure = message.message;
      return;
    }
    if (current.state !== 'starting') return;
    setStatus({
      state: 'running',
      restarts: current.restarts,
      url: message.url,
      ...(from.pid !== undefined && { pid: from.pid }),
    });
  }

  function onChildExit(exited: ServiceChild, code: number | null): void {
    // A late exit from a process the supervisor already replaced or gave up on says nothing new.
    if (exited !== child) return;
    child = undefined;
    if (stopRequested) {
      notifyStopped?.();
      return;
    }
    if (reportedFailure !== undefined) {
      quickCrashes = 0;
      setStatus({
        state: 'failed',
        restarts: current.restarts,
        lastExitCode: code,
        message: `The local LRS service could not start: ${reportedFailure}`,
      });
      return;
    }
    handleCrash(code, `exited unexpectedly with code ${code ?? 'unknown'}`);
  }

  function handleCrash(code: number | null, what: string): void {
    const ranFor = Date.now() - startedAt;
    quickCrashes = ranFor < stableAfterMs ? quickCrashes + 1 : 1;
    log(`LRS service ${what} after ${ranFor} ms (${quickCrashes} quick crash(es) in a row)`);
    if (quickCrashes >= maxQuickCrashes) {
      setStatus({
        state: 'failed',
        restarts: current.restarts,
        lastExitCode: code,
        message:
          `The local LRS service stopped ${quickCrashes} times in a row within ` +
          `${Math.round(stableAfterMs / 1000)} s of starting (last: ${what}). It was not restarted again.`,
      });
      return;
    }
    const delay = backoffDelay(quickCrashes, initialBackoffMs, maxBackoffMs);
    setStatus({
      state: 'restarting',
      restarts: current.restarts,
      lastExitCode: code,
      retryInMs: delay,
      message: `The local LRS service ${what}; restarting in ${delay} ms.`,
    });
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      current = { ...current, restarts: current.restarts + 1 };
      launch();
    }, delay);
  }

  async function stopNow(): Promise<void> {
    stopRequested = true;
    if (restartTimer !== undefined) {
      clearTimeout(restartTimer);
      restartTimer = undefined;
    }
    const running = child;
    if (running) {
      const exited = new Promise<void>((resolve) => {
        notifyStopped = resolve;
      });
      try {
        running.requestStop();
      } catch (error) {
        log(`graceful stop failed, killing: ${String(error)}`);
        running.kill();
      }
      if (!(await within(exited, stopTimeoutMs))) {
        log(`LRS service did not exit within ${stopTimeoutMs} ms; killing it`);
        running.kill();
        // Never hold the app's quit hostage: after a kill, wait once more and move on.
        await within(exited, stopTimeoutMs);
      }
      notifyStopped = undefined;
      child = undefined;
    }
    quickCrashes = 0;
    stopRequested = false;
    setStatus({ state: 'stopped', restarts: current.restarts });
  }

  const supervisor: ServiceSupervisor = {
    start() {
      if (stopRequested || child || restartTimer !== undefined) return;
      quickCrashes = 0;
      launch();
    },
    stop() {
      stopping ??= stopNow().finally(() => {
        stopping = undefined;
      });
      return stopping;
    },
    async restart() {
      await supervisor.stop();
      supervisor.start();
    },
    status: () => ({ ...current }),
    onStatus(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
  return supervisor;
}

/** Resolves true when `promise` settles within `ms`, false on timeout; clears its timer. */
async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
