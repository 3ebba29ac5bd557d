/**
 * Electron main: app lifecycle only. One instance, one console window, the tray, and the local
 * LRS service in its own utility process (so a heavy import or a crash there never freezes or
 * kills the window). Everything with a decision in it lives in a pure module beside this one.
 */
import { app, BrowserWindow, dialog, ipcMain, safeStorage, utilityProcess } from 'electron';
import type { IpcMainInvokeEvent } from 'electron';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appPaths } from './app-paths';
import { saveBackup, writeStreamToFile } from './backup-saver';
import {
  ADMIN_CHANNEL,
  ADMIN_EVENT_CHANNEL,
  ADMIN_REFUSAL_CHANNEL,
  ADMIN_STREAM_CHANNEL,
  BACKUP_CHANNEL,
  CONNECTION_CHANNEL,
  DESKTOP_CHANNEL,
  LAUNCH_CHANNEL,
  PACKAGE_CHANNEL,
  IMPORT_FILE_CHANNEL,
  REPORT_CHANNEL,
  EXPORT_CHANNEL,
  SERVICE_STATUS_CHANNEL,
} from './bridge-types';
import type { AdminBridgeResult } from './bridge-types';
import { createConnectionProfiles } from './connection-profiles';
import { createDesktopController, probeWith } from './desktop-controller';
import type { LocalSettings } from './desktop-contract';
import { quitWhenWindowsClosed } from './lifecycle';
import { describeRepair, repairDataDir } from '../src-server/storage/sqljs/journal-repair';
import { resolveSqljsWasmPath, serviceLaunch } from './local-service';
import { jsonFileStore, safeStorageSecretBox } from './persistence';
import { isTrustedIpcSender, rendererUrl, resolveRendererTarget } from './security';
import { createServiceSupervisor } from './service-supervisor';
import type { ServiceChild } from './service-supervisor';
import { createTray, trayModel } from './tray';
import type { LoreTray, TrayAction } from './tray';
import { importPackage, isLaunchUrlAllowed, saveAttemptReport } from './test-bench-bridge';
import { importStatementsFile } from './import-bridge';
import { saveExport } from './download-saver';
import { createLaunchWindow, createMainWindow } from './window';

const here = dirname(fileURLToPath(import.meta.url));

/** Message the service process receives on `process.parentPort` when the app quits. */
const SERVICE_SHUTDOWN_MESSAGE = { type: 'shutdown' } as const;

const REFUSED: AdminBridgeResult<never> = {
  ok: false,
  error: { status: 403, code: 'forbidden', message: 'Lore LRS: IPC refused for a page that is not the console' },
};

function main(): void {
  if (!app.requestSingleInstanceLock()) {
    // Another Lore window already owns the data directory; it is focused by 'second-instance'.
    app.quit();
    return;
  }
  // Every renderer sandboxed, whatever a BrowserWindow's options say.
  app.enableSandbox();

  const paths = appPaths(here, { isPackaged: app.isPackaged, resourcesPath: process.resourcesPath });
  const target = resolveRendererTarget({
    isPackaged: app.isPackaged,
    devServerUrl: process.env['ELECTRON_RENDERER_URL'],
    indexHtmlPath: paths.indexHtml,
  });
  const appUrl = rendererUrl(target);
  const log = (message: string) => console.error(`[lore desktop] ${message}`);
  const trusted = (event: IpcMainInvokeEvent) => isTrustedIpcSender(event.senderFrame?.url, appUrl);
  let mainWindow: BrowserWindow | undefined;
  let tray: LoreTray | undefined;

  function send(channel: string, payload: unknown): void {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(channel, payload);
  }

  function openWindow(): void {
    if (mainWindow && !mainWindow.isDestroyed()) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.show();
      mainWindow.focus();
      return;
    }
    mainWindow = createMainWindow({ preloadPath: paths.preload, target });
    mainWindow.on('closed', () => {
      mainWindow = undefined;
    });
  }

  function start(): void {
    const dataDir = join(app.getPath('userData'), 'data');
    const profiles = createConnectionProfiles({
      store: jsonFileStore(join(app.getPath('userData'), 'desktop-settings.json')),
      secrets: safeStorageSecretBox(safeStorage),
      probe: probeWith(fetch),
      log,
    });
    const wasmPath = resolveSqljsWasmPath((id) => createRequire(import.meta.url).resolve(id));
    let applied: LocalSettings | null = null;

    function spawnServiceProcess(): ServiceChild {
      const settings = profiles.localSettings();
      const launch = serviceLaunch({ settings, dataDir, adminToken: profiles.localAdminToken(), wasmPath, env: process.env });
      const child = utilityProcess.fork(paths.service, launch.args, {
        serviceName: 'Lore LRS service',
        stdio: 'inherit',
        execArgv: launch.execArgv,
        env: launch.env,
      });
      applied = settings;
      return {
        get pid() {
          return child.pid;
        },
        onExit: (listener) => {
          child.once('exit', (code) => listener(code));
        },
        onMessage: (listener) => {
          child.on('message', (message: unknown) => listener(message));
        },
        // Graceful first: the service flushes its journal and writes a snapshot before exiting.
        requestStop: () => child.postMessage(SERVICE_SHUTDOWN_MESSAGE),
        kill: () => {
          child.kill();
        },
      };
    }

    const supervisor = createServiceSupervisor({ spawn: spawnServiceProcess, log });
    const controller = createDesktopController({
      supervisor,
      profiles,
      dataDir,
      appliedSettings: () => applied,
      emitConnection: (connection) => send(CONNECTION_CHANNEL, connection),
      emitAdminEvent: (event) => send(ADMIN_EVENT_CHANNEL, event),
      emitAdminRefusal: (event) => send(ADMIN_REFUSAL_CHANNEL, event),
      emitAdminStream: (connected) => send(ADMIN_STREAM_CHANNEL, connected),
      log,
      // The same repair as `npm run repair`, run here while the service is stopped.
      repairData: async () => describeRepair(await repairDataDir({ dataDir, wasmPath, log }), dataDir),
      chooseFolder: async (title, current) => {
        const options = { title, defaultPath: current ?? app.getPath('documents'), properties: ['openDirectory' as const, 'createDirectory' as const] };
        const choice = mainWindow && !mainWindow.isDestroyed() ? await dialog.showOpenDialog(mainWindow, options) : await dialog.showOpenDialog(options);
        return choice.canceled ? undefined : choice.filePaths[0];
      },
    });

    ipcMain.handle(SERVICE_STATUS_CHANNEL, (event) => {
      if (!trusted(event)) throw new Error('Lore LRS: IPC refused for a page that is not the console');
      return supervisor.status();
    });
    ipcMain.handle(ADMIN_CHANNEL, (event, request: unknown) => {
      if (!trusted(event)) return REFUSED;
      const { name, input } = (typeof request === 'object' && request !== null ? request : {}) as Record<string, unknown>;
      return controller.admin(name, input);
    });
    ipcMain.handle(DESKTOP_CHANNEL, (event, request: unknown) => {
      if (!trusted(event)) return REFUSED;
      const { name, input } = (typeof request === 'object' && request !== null ? request : {}) as Record<string, unknown>;
      return controller.desktop(name, input);
    });
    /** The system's save dialog over the window, in Downloads with the name the service offers; undefined when cancelled. */
    const chooseSavePath =
      (title: string, filters?: Electron.FileFilter[]) =>
      async (suggestedName: string): Promise<string | undefined> => {
        const options = { title, defaultPath: join(app.getPath('downloads'), suggestedName), ...(filters ? { filters } : {}) };
        const choice = mainWindow && !mainWindow.isDestroyed() ? await dialog.showSaveDialog(mainWindow, options) : await dialog.showSaveDialog(options);
        return choice.canceled || !choice.filePath ? undefined : choice.filePath;
      };
    ipcMain.handle(BACKUP_CHANNEL, (event) => {
      if (!trusted(event)) return REFUSED;
      return saveBackup({
        resolveTarget: () => controller.activeTarget(),
        fetch,
        choosePath: chooseSavePath('Save a backup of the Lore database', [{ name: 'SQLite database', extensions: ['sqlite', 'sqlite3', 'db'] }]),
      });
    });
    ipcMain.handle(PACKAGE_CHANNEL, (event, request: unknown) => {
      if (!trusted(event)) return REFUSED;
      return importPackage({ resolveTarget: () => controller.activeTarget(), fetch }, request);
    });
    ipcMain.handle(IMPORT_FILE_CHANNEL, (event, request: unknown) => {
      if (!trusted(event)) return REFUSED;
      return importStatementsFile({ resolveTarget: () => controller.activeTarget(), fetch }, request);
    });
    ipcMain.handle(LAUNCH_CHANNEL, async (event, url: unknown): Promise<AdminBridgeResult<null>> => {
      if (!trusted(event)) return REFUSED;
      const resolution = await controller.activeTarget();
      if (!resolution.ok) return resolution;
      if (!isLaunchUrlAllowed(url, resolution.target.url)) {
        return { ok: false, error: { status: 400, code: 'launch_url_refused', message: 'Only a launch URL of the service this console manages opens in a window.' } };
      }
      createLaunchWindow(url);
      return { ok: true, value: null };
    });
    ipcMain.handle(REPORT_CHANNEL, (event, request: unknown) => {
      if (!trusted(event)) return REFUSED;
      return saveAttemptReport(
        {
          resolveTarget: () => controller.activeTarget(),
          fetch,
          writeFile: writeStreamToFile,
          choosePath: chooseSavePath('Save the Test Bench report'),
        },
        request,
      );
    });
    ipcMain.handle(EXPORT_CHANNEL, (event, request: unknown) => {
      if (!trusted(event)) return REFUSED;
      return saveExport({ resolveTarget: () => controller.activeTarget(), fetch, writeFile: writeStreamToFile, choosePath: chooseSavePath('Save the export') }, request);
    });
    ipcMain.handle(CONNECTION_CHANNEL, (event) => {
      if (!trusted(event)) throw new Error('Lore LRS: IPC refused for a page that is not the console');
      return controller.connection();
    });
    ipcMain.handle(ADMIN_STREAM_CHANNEL, (event) => {
      if (!trusted(event)) throw new Error('Lore LRS: IPC refused for a page that is not the console');
      return controller.adminStreamConnected();
    });

    function onTrayAction(action: TrayAction): void {
      switch (action) {
        case 'open':
          return openWindow();
        case 'start':
          return supervisor.start();
        case 'stop':
          return void supervisor.stop();
        case 'restart':
          return void supervisor.restart();
        case 'toggle-keep-running':
          return profiles.updatePreferences({ keepServiceRunning: !profiles.preferences().keepServiceRunning });
        case 'quit':
          return app.quit();
      }
    }
    try {
      tray = createTray(paths.trayIcon, onTrayAction);
    } catch (error) {
      log(`no tray icon on this desktop: ${String(error)}`);
    }
    const updateTray = () =>
      tray?.update(
        trayModel({
          status: supervisor.status(),
          connection: controller.connection(),
          keepServiceRunning: profiles.preferences().keepServiceRunning,
        }),
      );
    supervisor.onStatus((status) => {
      send(SERVICE_STATUS_CHANNEL, status);
      updateTray();
    });
    profiles.onChange(updateTray);

    app.on('window-all-closed', () => {
      const { keepServiceRunning } = profiles.preferences();
      if (quitWhenWindowsClosed({ keepServiceRunning, hasTray: tray !== undefined })) app.quit();
    });

    // Quit waits for the service to stop gracefully (bounded by the supervisor's timeouts).
    let serviceStopped = false;
    let stopping = false;
    app.on('before-quit', (event) => {
      if (serviceStopped) return;
      event.preventDefault();
      if (stopping) return;
      stopping = true;
      controller.dispose();
      void supervisor.stop().finally(() => {
        serviceStopped = true;
        tray?.destroy();
        app.quit();
      });
    });

    supervisor.start();
    updateTray();
    openWindow();
  }

  app.on('second-instance', () => openWindow());

  app
    .whenReady()
    .then(() => {
      start();
      app.on('activate', () => {
        if (BrowserWindow.getAllWindows().length === 0) openWindow();
      });
    })
    .catch((error: unknown) => {
      console.error(`Lore LRS failed to start: ${String(error)}`);
      app.exit(1);
    });
}

main();
