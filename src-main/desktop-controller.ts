/**
 * The desktop app's decisions in one place, without Electron: which deployment the console
 * manages, where its admin calls go (with which token), what the Connection screen shows and does,
 * and whose live events are relayed. index.ts wires it to IPC, the tray and the app lifecycle.
 */
import type { StoreChangeView, RefusalEventView } from '../src-server/admin/contract';
import { forwardAdminCall, zodIssueToError } from './admin-forwarder';
import type { FetchLike, TargetResolution } from './admin-forwarder';
import type { AdminBridgeResult, ConnectionDescription, DesktopState, ServiceStatus } from './bridge-types';
import { ProfileError, localUrlFor } from './connection-profiles';
import type { ConnectionProfiles, ProbeRemote } from './connection-profiles';
import { LOCAL_PROFILE_ID, desktopOperations } from './desktop-contract';
import type { LocalSettings } from './desktop-contract';
import { createLiveEventRelay } from './live-events';
import type { LiveEventRelay } from './live-events';
import type { ServiceSupervisor } from './service-supervisor';

export interface DesktopControllerOptions {
  supervisor: ServiceSupervisor;
  profiles: ConnectionProfiles;
  dataDir: string;
  /** The settings the current service process was started with (recorded by the spawn). */
  appliedSettings: () => LocalSettings | null;
  fetch?: FetchLike;
  /** Pushes to the console window. */
  emitConnection?: (connection: ConnectionDescription) => void;
  emitAdminEvent?: (event: StoreChangeView) => void;
  emitAdminRefusal?: (event: RefusalEventView) => void;
  /** The active connection's live stream came up (true) or went down (false). */
  emitAdminStream?: (connected: boolean) => void;
  log?: (message: string) => void;
  relayBackoffMs?: { initial: number; max: number };
  /**
   * Repairs the local data directory (storage/sqljs/journal-repair.ts) with the service stopped;
   * resolves with what it did, in plain words.
   */
  repairData?: () => Promise<string>;
  /** The system's folder dialog (index.ts: dialog.showOpenDialog); undefined when cancelled. */
  chooseFolder?: (title: string, current: string | undefined) => Promise<string | undefined>;
}

export interface DesktopController {
  connection(): ConnectionDescription;
  /** Whether the active connection's live stream is up (the console's "Live" badge). */
  adminStreamConnected(): boolean;
  state(): DesktopState;
  /** The `lore:admin` channel: one admin operation on the active connection. */
  admin(name: unknown, input: unknown): Promise<AdminBridgeResult<unknown>>;
  /** The `lore:desktop` channel: one desktop operation (desktop-contract.ts). */
  desktop(name: unknown, input: unknown): Promise<AdminBridgeResult<DesktopState>>;
  activeTarget(): TargetResolution;
  dispose(): void;
}

/** Tests a remote with the call every console makes first: GET /admin/api/status. */
export function probeWith(fetchImpl: FetchLike): ProbeRemote {
  return async (target) => {
    const result = await forwardAdminCall('status.get', {}, () => ({ ok: true, target }), fetchImpl, 10_000);
    return result.ok ? { ok: true } : result;
  };
}

function unavailableMessage(status: ServiceStatus): string {
  switch (status.state) {
    case 'starting':
      return 'The local LRS service is starting; try again in a moment.';
    case 'restarting':
      return `The local LRS service is restarting${status.message ? ` (${status.message})` : ''}.`;
    case 'failed':
      return `The local LRS service is not running: ${status.message ?? 'it failed'}. Start it on the Connection screen.`;
    default:
      return 'The local LRS service is stopped. Start it on the Connection screen.';
  }
}

export function createDesktopController(options: DesktopControllerOptions): DesktopController {
  const { supervisor, profiles, dataDir, appliedSettings } = options;
  const fetchImpl = options.fetch ?? fetch;
  const log = options.log ?? (() => {});

  const relay: LiveEventRelay = createLiveEventRelay({
    fetch: fetchImpl,
    emit: (event) => options.emitAdminEvent?.(event),
    emitRefusal: (event) => options.emitAdminRefusal?.(event),
    emitConnected: (connected) => options.emitAdminStream?.(connected),
    log,
    ...(options.relayBackoffMs && { initialBackoffMs: options.relayBackoffMs.initial, maxBackoffMs: options.relayBackoffMs.max }),
  });

  function localUrl(): string {
    const status = supervisor.status();
    return status.state === 'running' && status.url ? status.url : localUrlFor(profiles.localSettings());
  }

  function connection(): ConnectionDescription {
    return profiles.describeActive(localUrl());
  }

  function activeTarget(): TargetResolution {
    const id = profiles.activeId();
    if (id === LOCAL_PROFILE_ID) {
      const status = supervisor.status();
      if (status.state !== 'running' || !status.url) {
        return { ok: false, error: { status: 503, code: 'service_unavailable', message: unavailableMessage(status) } };
      }
      return { ok: true, target: { url: status.url, token: profiles.localAdminToken() } };
    }
    try {
      return { ok: true, target: profiles.remoteTarget(id) };
    } catch (error) {
      if (error instanceof ProfileError) return { ok: false, error: error.detail };
      throw error;
    }
  }

  function state(): DesktopState {
    const status = supervisor.status();
    const settings = profiles.localSettings();
    const live = status.state === 'starting' || status.state === 'running' || status.state === 'restarting';
    const applied = live ? appliedSettings() : null;
    return {
      connection: connection(),
      profiles: profiles.list(localUrl()),
      local: {
        settings,
        applied,
        restartNeeded: applied !== null && (applied.port !== settings.port || applied.host !== settings.host || applied.backupDir !== settings.backupDir),
        dataDir,
        status,
        lastRepair,
      },
      preferences: profiles.preferences(),
      secureStorage: profiles.secureStorageAvailable(),
    };
  }

  /** What the last repair of this run did (local.repair), for the Connection screen. */
  let lastRepair: string | null = null;

  // Keep the relay and the console's header on the active connection as things change.
  let lastConnection = '';
  function refresh(): void {
    const description = connection();
    const key = JSON.stringify(description);
    if (key !== lastConnection) {
      lastConnection = key;
      options.emitConnection?.(description);
    }
    const target = activeTarget();
    relay.follow(target.ok ? target.target : undefined);
  }
  const unsubscribers = [supervisor.onStatus(() => refresh()), profiles.onChange(() => refresh())];
  refresh();

  async function perform(name: keyof typeof desktopOperations, input: never): Promise<void> {
    switch (name) {
      case 'desktop.state':
        return;
      case 'service.start':
        supervisor.start();
        return;
      case 'service.stop':
        return supervisor.stop();
      case 'service.restart':
        return supervisor.restart();
      case 'local.update':
        profiles.updateLocalSettings(input);
        return;
      case 'local.repair': {
        const current = supervisor.status().state;
        if (current === 'running' || current === 'starting' || current === 'restarting') {
          throw new ProfileError({ status: 409, code: 'service_running', message: 'Stop the local service first: a repair needs its data directory to itself.' });
        }
        if (!options.repairData) throw new ProfileError({ status: 501, code: 'not_supported', message: 'This app cannot repair its data here.' });
        try {
          lastRepair = await options.repairData();
        } catch (error) {
          throw new ProfileError({ status: 409, code: 'repair_failed', message: `The repair did not finish: ${error instanceof Error ? error.message : String(error)}` });
        }
        supervisor.start();
        return;
      }
      case 'local.chooseBackupDir': {
        const current = profiles.localSettings();
        const chosen = await options.chooseFolder?.('Choose where Lore keeps its scheduled backups', current.backupDir);
        if (chosen) profiles.updateLocalSettings({ ...current, backupDir: chosen });
        return;
      }
      case 'remote.save':
        await profiles.saveRemote(input);
        return;
      case 'remote.remove':
        profiles.removeRemote((input as { id: string }).id);
        return;
      case 'connection.activate':
        profiles.activate((input as { id: string }).id);
        return;
      case 'preferences.update':
        profiles.updatePreferences(input);
        return;
    }
  }

  return {
    connection,
    adminStreamConnected: () => relay.connected(),
    state,
    activeTarget,
    admin: (name, input) => forwardAdminCall(name, input, activeTarget, fetchImpl),
    async desktop(name, input) {
      if (typeof name !== 'string' || !Object.hasOwn(desktopOperations, name)) {
        return { ok: false, error: { status: 400, code: 'unknown_operation', message: `There is no desktop operation named ${JSON.stringify(name)}.` } };
      }
      const operation = name as keyof typeof desktopOperations;
      const parsed = desktopOperations[operation].safeParse(input ?? {});
      if (!parsed.success) return { ok: false, error: zodIssueToError(parsed.error, 400, 'invalid_input') };
      try {
        await perform(operation, parsed.data as never);
        return { ok: true, value: state() };
      } catch (error) {
        if (error instanceof ProfileError) return { ok: false, error: error.detail };
        log(`desktop operation ${operation} failed: ${String(error)}`);
        return { ok: false, error: { status: 500, code: 'internal', message: `${operation} failed: ${error instanceof Error ? error.message : String(error)}` } };
      }
    },
    dispose() {
      for (const unsubscribe of unsubscribers) unsubscribe();
      relay.stop();
    },
  };
}
