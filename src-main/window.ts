/**
 * The console window and the rules every web contents obeys. Thin: the decisions are the pure
 * functions of security.ts; this file only attaches them to Electron's events.
 */
import { BrowserWindow, shell } from 'electron';
import type { WebContents } from 'electron';
import {
  HARDENED_WEB_PREFERENCES,
  isAllowedNavigation,
  isPermissionAllowed,
  isSafeExternalUrl,
  rendererUrl,
} from './security';
import type { RendererTarget } from './security';

export interface MainWindowOptions {
  preloadPath: string;
  target: RendererTarget;
  iconPath?: string;
  log?: (message: string) => void;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const { preloadPath, target, iconPath, log = console.error } = options;
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 800,
    minHeight: 560,
    title: 'Lore LRS',
    // Shown on ready-to-show, so the user never sees an empty white frame.
    show: false,
    autoHideMenuBar: true,
    ...(iconPath !== undefined && { icon: iconPath }),
    webPreferences: { ...HARDENED_WEB_PREFERENCES, preload: preloadPath },
  });
  hardenWebContents(win.webContents, rendererUrl(target));
  win.once('ready-to-show', () => win.show());

  const loading = target.kind === 'url' ? win.loadURL(target.url) : win.loadFile(target.path);
  loading.catch((error: unknown) => log(`Lore LRS: the console did not load: ${String(error)}`));
  return win;
}

/**
 * Locks a web contents to the app: no navigation away from `appUrl`, no new windows (https links
 * go to the system browser instead), no <webview>, and no device permissions.
 */
export function hardenWebContents(contents: WebContents, appUrl: string, mayNavigate: (url: string) => boolean = (url) => isAllowedNavigation(url, appUrl)): void {
  contents.on('will-navigate', (event) => {
    if (!mayNavigate(event.url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isSafeExternalUrl(url)) {
      shell.openExternal(url).catch(() => {
        // Nothing to do: no browser registered for https, or the user cancelled.
      });
    }
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((_contents, permission, callback) => {
    callback(isPermissionAllowed(permission));
  });
  contents.session.setPermissionCheckHandler((_contents, permission) => isPermissionAllowed(permission));
}

/**
 * A Test Bench launch: the course in a window of its own, with no preload (no bridge to the app)
 * and the same hardened preferences. It may move within the service that served it (a course
 * navigates between its pages); links elsewhere go to the system browser, as in the console.
 */
export function createLaunchWindow(url: string, iconPath?: string): BrowserWindow {
  const origin = new URL(url).origin;
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Lore LRS: Test Bench',
    autoHideMenuBar: true,
    ...(iconPath !== undefined && { icon: iconPath }),
    webPreferences: { ...HARDENED_WEB_PREFERENCES },
  });
  hardenWebContents(win.webContents, `${origin}/`, (target) => target.startsWith(`${origin}/`));
  void win.loadURL(url);
  return win;
}
