/**
 * Where the built pieces are, from the directory of the built main bundle (out/main/).
 * electron-vite writes out/main/{index,service-process}.js, out/preload/preload.cjs and
 * out/renderer/index.html; the tray icon is resources/icon.png in a checkout and, packaged,
 * the copy electron-builder puts beside app.asar (extraResources in electron-builder.yml).
 */
import { join } from 'node:path';

export interface AppPaths {
  preload: string;
  indexHtml: string;
  service: string;
  trayIcon: string;
}

export function appPaths(mainDir: string, packaged: { isPackaged: boolean; resourcesPath: string }): AppPaths {
  return {
    preload: join(mainDir, '../preload/preload.cjs'),
    indexHtml: join(mainDir, '../renderer/index.html'),
    service: join(mainDir, 'service-process.js'),
    trayIcon: packaged.isPackaged ? join(packaged.resourcesPath, 'icon.png') : join(mainDir, '../../resources/icon.png'),
  };
}
