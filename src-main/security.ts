/**
 * The desktop shell's hardening rules, as pure functions so that they are table-tested without
 * Electron. window.ts and index.ts only wire them to Electron's events.
 *
 * The threat model: the renderer shows data that came from the network (statements, activity
 * names, agent names). If any of it ever slips through as markup, it must not be able to run
 * script, navigate the window somewhere else, open windows, use device permissions or talk to
 * the main process from a foreign page.
 */
import { pathToFileURL } from 'node:url';

type Directives = Record<string, readonly string[]>;

const PRODUCTION_DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  // Only the bundled scripts: no inline script, no eval, no remote script.
  'script-src': ["'self'"],
  // Mantine writes its CSS variables into a <style> element and style props into style
  // attributes, so inline *styles* are allowed. Styles cannot run code; scripts stay locked.
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  // The local service listens on a loopback port chosen at run time.
  'connect-src': ["'self'", 'http://127.0.0.1:*', 'http://localhost:*'],
  'object-src': ["'none'"],
  'frame-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
};

function serialise(directives: Directives): string {
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/** The Content-Security-Policy of the renderer; index.html carries exactly this string. */
export const RENDERER_CSP = serialise(PRODUCTION_DIRECTIVES);

/**
 * The policy while `electron-vite dev` serves the renderer: Vite's React refresh preamble is an
 * inline script and hot reload talks over a WebSocket. Never shipped: only the dev server uses it.
 */
export const DEV_RENDERER_CSP = serialise({
  ...PRODUCTION_DIRECTIVES,
  'script-src': ["'self'", "'unsafe-inline'"],
  'connect-src': [...(PRODUCTION_DIRECTIVES['connect-src'] ?? []), 'ws://127.0.0.1:*', 'ws://localhost:*'],
});

/**
 * webPreferences every window gets. Electron's defaults already match most of these; they are
 * spelled out so that a future default change, or a careless edit, shows up in a test.
 */
export const HARDENED_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  safeDialogs: true,
} as const;

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/**
 * Whether `url` is the app's own document. For a file:// app that is the same file (query and
 * fragment may differ); for the dev server it is the same origin.
 */
function isAppDocument(url: string, appUrl: string): boolean {
  const target = parseUrl(url);
  const app = parseUrl(appUrl);
  if (!target || !app || target.protocol !== app.protocol) return false;
  switch (app.protocol) {
    case 'file:':
      return target.host === app.host && target.pathname === app.pathname;
    case 'http:':
    case 'https:':
      return target.origin === app.origin;
    default:
      return false;
  }
}

/**
 * The console is a single-page app: it never needs to navigate its window. A link that would
 * (a crafted activity name, a dropped file) is refused; reloading the app itself is allowed.
 */
export function isAllowedNavigation(url: string, appUrl: string): boolean {
  return isAppDocument(url, appUrl);
}

/**
 * IPC answers only the app's own document, never a frame that somehow loaded another page.
 * `frameUrl` is `event.senderFrame.url`.
 */
export function isTrustedIpcSender(frameUrl: string | undefined, appUrl: string): boolean {
  return frameUrl !== undefined && isAppDocument(frameUrl, appUrl);
}

/**
 * Links the user may open in the system browser: https only, no credentials in the URL.
 * file:, smb:, custom schemes and plain http are refused: handing them to the OS can launch
 * programs or leak NTLM hashes.
 */
export function isSafeExternalUrl(url: string): boolean {
  const target = parseUrl(url);
  return target !== undefined && target.protocol === 'https:' && target.username === '' && target.password === '';
}

/**
 * Permissions the console may use. Writing to the clipboard is the one it needs: an API key's
 * secret is shown once, with a Copy button. Camera, microphone, notifications, geolocation,
 * reading the clipboard, and everything else are denied.
 */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function isPermissionAllowed(permission: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission);
}

export type RendererTarget = { kind: 'url'; url: string } | { kind: 'file'; path: string };

/**
 * Where the window loads the console from. `electron-vite dev` passes the dev server's URL in
 * ELECTRON_RENDERER_URL; a packaged app ignores that variable, so an environment variable can
 * never point an installed app at a remote page. The dev URL must be a loopback http(s) URL.
 */
export function resolveRendererTarget(options: {
  isPackaged: boolean;
  devServerUrl: string | undefined;
  indexHtmlPath: string;
}): RendererTarget {
  const { isPackaged, devServerUrl, indexHtmlPath } = options;
  if (!isPackaged && devServerUrl && isLoopbackHttpUrl(devServerUrl)) {
    return { kind: 'url', url: devServerUrl };
  }
  return { kind: 'file', path: indexHtmlPath };
}

export function isLoopbackHttpUrl(url: string): boolean {
  const target = parseUrl(url);
  if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) return false;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname);
}

/** The URL the window's document has once `target` is loaded: what navigation and IPC compare to. */
export function rendererUrl(target: RendererTarget): string {
  return target.kind === 'url' ? target.url : pathToFileURL(target.path).href;
}
