/**
 * The desktop app's saved settings: the local service's port and listen address, connection
 * profiles (the local service, or remote deployments with their admin tokens), which one is
 * active, the "keep the service running" preference, and the local service's admin token.
 *
 * Pure: the JSON file, the encryption (Electron's safeStorage) and the remote test are injected,
 * so the rules are tested without Electron. Tokens are kept only encrypted, and nothing here hands
 * a token to anyone but main's own HTTP calls: views for the renderer carry none.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AdminBridgeError, ConnectionDescription, ConnectionProfileView } from './bridge-types';
import { DEFAULT_LOCAL_SETTINGS, LOCAL_PROFILE_ID, localSettingsSchema } from './desktop-contract';
import type { DesktopPreferences, LocalSettings, RemoteProfileInput } from './desktop-contract';
import type { AdminTarget } from './admin-forwarder';

/** Encryption at rest; Electron's safeStorage in the app (see electron-adapters.ts). */
export interface SecretBox {
  /** False when the system has no keyring/keychain to encrypt with. */
  isAvailable(): boolean;
  /** Returns the ciphertext as base64. */
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

/** The settings file; `read` returns undefined when there is none yet. */
export interface JsonStore {
  read(): unknown;
  write(value: unknown): void;
}

/** Asks a remote deployment's admin API whether the token works (GET /admin/api/status). */
export type ProbeRemote = (target: AdminTarget) => Promise<{ ok: true } | { ok: false; error: AdminBridgeError }>;

const remoteRecordSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  url: z.string(),
  /** safeStorage ciphertext, base64. */
  token: z.string(),
});

const settingsFileSchema = z.object({
  version: z.literal(1).default(1),
  local: localSettingsSchema.catch({ ...DEFAULT_LOCAL_SETTINGS }).default({ ...DEFAULT_LOCAL_SETTINGS }),
  /**
   * Default off: a laptop user who closes the window expects the app, and the port it holds, to
   * be gone. A small organisation leaving Lore running as its LRS turns it on once.
   */
  keepServiceRunning: z.boolean().catch(false).default(false),
  active: z.string().catch(LOCAL_PROFILE_ID).default(LOCAL_PROFILE_ID),
  remotes: z.array(remoteRecordSchema).catch([]).default([]),
  /** The local service's admin token, safeStorage ciphertext, base64. */
  localAdminToken: z.string().optional().catch(undefined),
});
type SettingsFile = z.infer<typeof settingsFileSchema>;

/** An error the Connection screen shows as is (a bad URL, a failed test, no secure storage). */
export class ProfileError extends Error {
  constructor(readonly detail: AdminBridgeError) {
    super(detail.message);
    this.name = 'ProfileError';
  }
}

/**
 * A remote deployment's base URL: http(s), no credentials, query or fragment; a path prefix
 * (a service behind a proxy at /lore) is kept; the trailing slash and a pasted `/admin/...`
 * console or API address are dropped.
 */
export function normaliseServiceUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ProfileError({ status: 400, code: 'invalid_url', field: 'url', message: 'The URL is not valid; it looks like https://lrs.example.org' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProfileError({ status: 400, code: 'invalid_url', field: 'url', message: 'The URL must start with https:// or http://' });
  }
  if (url.username || url.password) {
    throw new ProfileError({ status: 400, code: 'invalid_url', field: 'url', message: 'Put the admin token in its own field, not in the URL' });
  }
  const path = url.pathname.replace(/\/admin(\/.*)?$/, '').replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

/** The URL a local service is reached at for its settings (0.0.0.0 listens on loopback too). */
export function localUrlFor(settings: LocalSettings): string {
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${settings.port}`;
}

export interface ConnectionProfilesOptions {
  store: JsonStore;
  secrets: SecretBox;
  probe: ProbeRemote;
  log?: (message: string) => void;
  generateToken?: () => string;
}

export interface ConnectionProfiles {
  localSettings(): LocalSettings;
  updateLocalSettings(settings: LocalSettings): void;
  preferences(): DesktopPreferences;
  updatePreferences(preferences: DesktopPreferences): void;
  /** The local service's admin token: created once per installation, kept encrypted. */
  localAdminToken(): string;
  /** Every profile, local first, without tokens. `localUrl` is where the local service is now. */
  list(localUrl: string): ConnectionProfileView[];
  activeId(): string;
  /** The active connection as the console shows it. */
  describeActive(localUrl: string): ConnectionDescription;
  activate(id: string): void;
  /** Tests the remote (its admin API must answer with the token), then saves it encrypted. */
  saveRemote(input: RemoteProfileInput): Promise<ConnectionProfileView>;
  removeRemote(id: string): void;
  /** The active remote's URL and token (decrypted here, for main's own requests only). */
  remoteTarget(id: string): AdminTarget;
  secureStorageAvailable(): boolean;
  /** Calls `listener` after every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

export function createConnectionProfiles(options: ConnectionProfilesOptions): ConnectionProfiles {
  const { store, secrets, probe } = options;
  const log = options.log ?? (() => {});
  const generateToken = options.generateToken ?? (() => `lore_admin_${randomBytes(32).toString('base64url')}`);
  const listeners = new Set<() => void>();

  let settings = load();
  // Used when the system cannot encrypt: a token for this run only, never written in clear.
  let ephemeralLocalToken: string | undefined;

  function load(): SettingsFile {
    let raw: unknown;
    try {
      raw = store.read();
    } catch (error) {
      log(`settings could not be read, using defaults: ${String(error)}`);
    }
    const parsed = settingsFileSchema.safeParse(raw ?? {});
    if (parsed.success) return parsed.data;
    log('settings file is not valid, using defaults');
    return settingsFileSchema.parse({});
  }

  function save(next: SettingsFile): void {
    store.write(next);
    settings = next;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        log(`settings listener failed: ${String(error)}`);
      }
    }
  }

  function findRemote(id: string) {
    const remote = settings.remotes.find((r) => r.id === id);
    if (!remote) throw new ProfileError({ status: 404, code: 'profile_not_found', field: 'id', message: `There is no saved connection "${id}".` });
    return remote;
  }

  function requireEncryption(): void {
    if (!secrets.isAvailable()) {
      throw new ProfileError({
        status: 503,
        code: 'secure_storage_unavailable',
        message: 'This system offers no encrypted storage (keychain or keyring) for the admin token, so it cannot be saved.',
      });
    }
  }

  return {
    localSettings: () => ({ ...settings.local }),
    updateLocalSettings(local) {
      save({ ...settings, local: localSettingsSchema.parse(local) });
    },
    preferences: () => ({ keepServiceRunning: settings.keepServiceRunning }),
    updatePreferences({ keepServiceRunning }) {
      save({ ...settings, keepServiceRunning });
    },

    localAdminToken() {
      if (settings.localAdminToken !== undefined && secrets.isAvailable()) {
        try {
          return secrets.decrypt(settings.localAdminToken);
        } catch (error) {
          // Another user's keyring, or a reset one: the local service simply gets a new token.
          log(`the local admin token could not be decrypted, making a new one: ${String(error)}`);
        }
      }
      if (!secrets.isAvailable()) {
        ephemeralLocalToken ??= generateToken();
        return ephemeralLocalToken;
      }
      const token = generateToken();
      save({ ...settings, localAdminToken: secrets.encrypt(token) });
      return token;
    },

    list(localUrl) {
      return [
        { id: LOCAL_PROFILE_ID, kind: 'local', label: 'Local service', url: localUrl, active: settings.active === LOCAL_PROFILE_ID },
        ...settings.remotes.map((r): ConnectionProfileView => ({
          id: r.id,
          kind: 'remote',
          label: r.label,
          url: r.url,
          active: settings.active === r.id,
        })),
      ];
    },
    activeId: () => (settings.remotes.some((r) => r.id === settings.active) ? settings.active : LOCAL_PROFILE_ID),
    describeActive(localUrl) {
      const remote = settings.remotes.find((r) => r.id === settings.active);
      return remote
        ? { kind: 'remote', url: remote.url, label: remote.label }
        : { kind: 'local', url: localUrl, label: 'Local service' };
    },
    activate(id) {
      if (id !== LOCAL_PROFILE_ID) findRemote(id);
      if (settings.active !== id) save({ ...settings, active: id });
    },

    async saveRemote(raw) {
      const label = raw.label.trim();
      const token = raw.token.trim();
      const url = normaliseServiceUrl(raw.url);
      requireEncryption();
      const tested = await probe({ url, token });
      if (!tested.ok) {
        throw new ProfileError({
          ...tested.error,
          message: `The connection test failed, nothing was saved: ${tested.error.message}`,
        });
      }
      // Saving the same URL again replaces its token (a rotated admin token) instead of adding one.
      const existing = settings.remotes.find((r) => r.url === url);
      const record = { id: existing?.id ?? randomUUID(), label, url, token: secrets.encrypt(token) };
      const remotes = existing ? settings.remotes.map((r) => (r.id === existing.id ? record : r)) : [...settings.remotes, record];
      const activate = raw.activate ?? true;
      save({ ...settings, remotes, active: activate ? record.id : settings.active });
      return { id: record.id, kind: 'remote', label, url, active: activate || settings.active === record.id };
    },
    removeRemote(id) {
      findRemote(id);
      save({
        ...settings,
        remotes: settings.remotes.filter((r) => r.id !== id),
        active: settings.active === id ? LOCAL_PROFILE_ID : settings.active,
      });
    },
    remoteTarget(id) {
      const remote = findRemote(id);
      requireEncryption();
      try {
        return { url: remote.url, token: secrets.decrypt(remote.token) };
      } catch {
        throw new ProfileError({
          status: 503,
          code: 'token_unreadable',
          message: `The admin token of "${remote.label}" cannot be decrypted on this system; enter it again on the Connection screen.`,
        });
      }
    },
    secureStorageAvailable: () => secrets.isAvailable(),
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
