/**
 * The desktop-only operations the console asks the main process for (the Connection screen):
 * the local service's start/stop/restart and settings, connection profiles, and preferences.
 * One table, one IPC channel (`lore:desktop`), like the admin API's `adminOperations`: the inputs
 * come from the renderer, so each is a zod schema that main validates before acting.
 *
 * No Node or Electron imports: bridge-types.ts takes its types from here for the renderer too.
 */
import { z } from 'zod';

/** Default port and listen address of the local service (the same as the headless service's). */
export const DEFAULT_LOCAL_SETTINGS = { port: 8411, host: '127.0.0.1' } as const;

export const localSettingsSchema = z.strictObject({
  /** 0 lets the system pick a free port at every start. */
  port: z.number().int('the port is a whole number').min(0, 'a port is 0 to 65535').max(65535, 'a port is 0 to 65535'),
  /** 127.0.0.1 serves this machine only; 0.0.0.0 serves the network. */
  host: z
    .string()
    .trim()
    .min(1, 'a listen address is required')
    .max(255)
    .regex(/^[A-Za-z0-9.:[\]-]+$/, 'a listen address is an IP address or a host name, like 127.0.0.1 or 0.0.0.0'),
  /**
   * Where the scheduled backups go (an external disk, a synced folder); absent: the `backups`
   * folder beside the data directory. Chosen in a folder dialog (`local.chooseBackupDir`).
   */
  backupDir: z.string().trim().min(1, 'a backup folder is a path').max(4096).optional(),
});
export type LocalSettings = z.infer<typeof localSettingsSchema>;

const preferencesSchema = z.strictObject({
  /** Closing the window leaves the app (and the local service) running in the tray. */
  keepServiceRunning: z.boolean(),
});
export type DesktopPreferences = z.infer<typeof preferencesSchema>;

const remoteProfileInputSchema = z.strictObject({
  label: z.string().trim().min(1, 'a name is required').max(100),
  url: z.string().trim().min(1, 'the URL of the Lore service is required').max(2048),
  token: z.string().trim().min(1, 'the admin token is required').max(4096),
  /** Make it the active connection once saved (default). */
  activate: z.boolean().default(true),
});
export type RemoteProfileInput = z.input<typeof remoteProfileInputSchema>;

const profileId = z.strictObject({ id: z.string().min(1).max(100) });
const none = z.strictObject({});

export const desktopOperations = {
  /** Everything the Connection screen shows. */
  'desktop.state': none,
  'service.start': none,
  'service.stop': none,
  'service.restart': none,
  /** Saved now, applied at the service's next (re)start. */
  'local.update': localSettingsSchema,
  /** Asks for a backup folder in the system's folder dialog and saves it; a restart applies it. */
  'local.chooseBackupDir': none,
  /** Repairs the local data directory's damaged journal (npm run repair), then starts the service. */
  'local.repair': none,
  /** Tested (GET /admin/api/status with the token) before anything is saved. */
  'remote.save': remoteProfileInputSchema,
  'remote.remove': profileId,
  /** `local`, or a remote profile's id. */
  'connection.activate': profileId,
  'preferences.update': preferencesSchema,
} as const satisfies Record<string, z.ZodType>;

type DesktopOperations = typeof desktopOperations;
export type DesktopOperationName = keyof DesktopOperations;
export type DesktopInput<N extends DesktopOperationName> = z.input<DesktopOperations[N]>;

export const LOCAL_PROFILE_ID = 'local';
