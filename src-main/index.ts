/**
 * Electron main: app lifecycle only. One instance, one console window, and the local LRS service
 * in its own utility process (so a heavy import or a crash there never freezes or kills the
 * window). Everything with a decision in it lives in a pure module beside this one.
 */
import { app, BrowserWindow, ipcMain, utilityProcess } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_STATUS_CHANNEL } from './bridge-types';
import { isTrustedIpcSender, rendererUrl, resolveRendererTarget } from './security';
import { createServiceSupervisor } from './service-supervisor';
import type { ServiceChild } from './service-supervisor';
import { createMainWindow } from './window';

// Built layout (electron-vite): out/main/{index,service-process}.js, out/preload/preload.cjs,
// out/renderer/index.html.
const here = dirname(fileURLToPath(import.meta.url));
const paths = {
  preload: join(here, '../preload/preload.cjs'),
  indexHtml: join(here, '../renderer/index.html'),
  service: join(here, 'service-process.js'),
};

/** Message the service process receives on `process.parentPort` when the app quits. */
const SERVICE_SHUTDOWN_MESSAGE = { type: 'shutdown' } as const;

function spawnServiceProcess(): ServiceChild {
  const dataDir = join(app.getPath('userData'), 'data');
  const child = utilityProcess.fork(paths.service, ['--data-dir', dataDir], {
    serviceName: 'Lore LRS service',
    stdio: 'inherit',
  });
  return {
    get pid() {
      return child.pid;
    },
    onExit: (listener) => {
      child.once('exit', (code) => listener(code));
    },
    // Graceful first: the service flushes its journal and writes a snapshot before exiting.
    requestStop: () => child.postMessage(SERVICE_SHUTDOWN_MESSAGE),
    kill: () => {
      child.kill();
    },
  };
}

function main(): void {
  if (!app.requestSingleInstanceLock()) {
    // Another Lore window already owns the data directory; it is focused by 'second-instance'.
    app.quit();
    return;
  }
  // Every renderer sandboxed, whatever a BrowserWindow's options say.
  app.enableSandbox();

  const target = resolveRendererTarget({
    isPackaged: app.isPackaged,
    devServerUrl: process.env['ELECTRON_RENDERER_URL'],
    indexHtmlPath: paths.indexHtml,
  });
  const appUrl = rendererUrl(target);
  const supervisor = createServiceSupervisor({ spawn: spawnServiceProcess, log: (m) => console.error(m) });
  let mainWindow: BrowserWindow | undefined;

  function openWindow(): void {
    mainWindow = createMainWindow({ preloadPath: paths.preload, target });
    mainWindow.on('closed', () => {
      mainWindow = undefined;
    });
  }

  ipcMain.handle(SERVICE_STATUS_CHANNEL, (event) => {
    if (!isTrustedIpcSender(event.senderFrame?.url, appUrl)) {
      throw new Error('Lore LRS: IPC refused for a page that is not the console');
    }
    return supervisor.status();
  });
  supervisor.onStatus((status) => {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(SERVICE_STATUS_CHANNEL, status);
  });

  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Quit waits for the service to stop gracefully (bounded by the supervisor's timeouts).
  let serviceStopped = false;
  let stopping = false;
  app.on('before-quit', (event) => {
    if (serviceStopped) return;
    event.preventDefault();
    if (stopping) return;
    stopping = true;
    void supervisor.stop().finally(() => {
      serviceStopped = true;
      app.quit();
    });
  });

  app
    .whenReady()
    .then(() => {
      supervisor.start();
      openWindow();
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
