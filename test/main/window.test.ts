import type { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';

// window.ts is the only thin layer under test here: Electron is replaced by recording fakes.
const fakes = await vi.hoisted(async () => {
  type Handler = (...args: unknown[]) => unknown;
  const created: FakeWindow[] = [];
  const openExternal = { calls: [] as string[] };

  // vi.hoisted runs before the file's imports, so it imports what it needs itself.
  const { EventEmitter: Emitter } = await import('node:events');

  class FakeWebContents extends Emitter {
    windowOpenHandler: Handler | undefined;
    permissionRequestHandler: Handler | undefined;
    permissionCheckHandler: Handler | undefined;
    session = {
      setPermissionRequestHandler: (handler: Handler) => {
        this.permissionRequestHandler = handler;
      },
      setPermissionCheckHandler: (handler: Handler) => {
        this.permissionCheckHandler = handler;
      },
    };
    setWindowOpenHandler(handler: Handler) {
      this.windowOpenHandler = handler;
    }
  }

  class FakeWindow extends Emitter {
    webContents = new FakeWebContents();
    loads: { kind: 'file' | 'url'; target: string }[] = [];
    shown = false;
    constructor(readonly options: Record<string, unknown>) {
      super();
      created.push(this);
    }
    loadFile(target: string) {
      this.loads.push({ kind: 'file', target });
      return Promise.resolve();
    }
    loadURL(target: string) {
      this.loads.push({ kind: 'url', target });
      return Promise.resolve();
    }
    show() {
      this.shown = true;
    }
  }

  return { created, openExternal, FakeWindow, FakeWebContents };
});

vi.mock('electron', () => ({
  BrowserWindow: fakes.FakeWindow,
  shell: {
    openExternal: (url: string) => {
      fakes.openExternal.calls.push(url);
      return Promise.resolve();
    },
  },
}));

const { createMainWindow, hardenWebContents } = await import('../../src-main/window');

type FakeWindow = InstanceType<typeof fakes.FakeWindow>;
type FakeWebContents = InstanceType<typeof fakes.FakeWebContents>;

const INDEX_HTML = '/opt/lore/out/renderer/index.html';
const APP_URL = 'file:///opt/lore/out/renderer/index.html';

function openFileWindow(): FakeWindow {
  createMainWindow({ preloadPath: '/opt/lore/out/preload/preload.cjs', target: { kind: 'file', path: INDEX_HTML } });
  const win = fakes.created.at(-1);
  if (!win) throw new Error('no window created');
  return win;
}

function navigate(contents: EventEmitter, url: string): boolean {
  let prevented = false;
  contents.emit('will-navigate', { url, preventDefault: () => (prevented = true) }, url);
  return prevented;
}

beforeEach(() => {
  fakes.created.length = 0;
  fakes.openExternal.calls.length = 0;
});

describe('createMainWindow', () => {
  it('creates the window isolated, sandboxed, without Node, with web security and the preload', () => {
    const win = openFileWindow();
    expect(win.options['webPreferences']).toEqual({
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
      preload: '/opt/lore/out/preload/preload.cjs',
    });
    expect(win.options['title']).toBe('Lore LRS');
  });

  it('loads the built index.html from disk and shows the window only when it is ready', () => {
    const win = openFileWindow();
    expect(win.loads).toEqual([{ kind: 'file', target: INDEX_HTML }]);
    expect(win.shown).toBe(false);
    win.emit('ready-to-show');
    expect(win.shown).toBe(true);
  });

  it('loads the dev server URL when given one', () => {
    createMainWindow({ preloadPath: '/p.cjs', target: { kind: 'url', url: 'http://localhost:5173/' } });
    expect(fakes.created.at(-1)?.loads).toEqual([{ kind: 'url', target: 'http://localhost:5173/' }]);
  });

  it('blocks navigation away from the console and allows in-app routes', () => {
    const win = openFileWindow();
    expect(navigate(win.webContents, 'https://evil.example/')).toBe(true);
    expect(navigate(win.webContents, 'file:///etc/passwd')).toBe(true);
    expect(navigate(win.webContents, `${APP_URL}#/statements`)).toBe(false);
  });

  it('hands https links to the system browser and denies every new window', () => {
    const win = openFileWindow();
    const open = (url: string) => win.webContents.windowOpenHandler?.({ url });
    expect(open('https://adlnet.gov/')).toEqual({ action: 'deny' });
    expect(open('http://example.com/')).toEqual({ action: 'deny' });
    expect(open('file:///C:/Windows/System32/calc.exe')).toEqual({ action: 'deny' });
    expect(fakes.openExternal.calls).toEqual(['https://adlnet.gov/']);
  });

  it('refuses to attach a <webview>', () => {
    const win = openFileWindow();
    let prevented = false;
    win.webContents.emit('will-attach-webview', { preventDefault: () => (prevented = true) }, {}, {});
    expect(prevented).toBe(true);
  });

  it('denies permission requests and checks', () => {
    const contents = openFileWindow().webContents;
    const granted: unknown[] = [];
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read']) {
      contents.permissionRequestHandler?.(contents, permission, (answer: boolean) => granted.push(answer), {});
    }
    expect(granted).toEqual([false, false, false, false]);
    expect(contents.permissionCheckHandler?.(contents, 'media', 'file://', {})).toBe(false);
    expect(contents.permissionCheckHandler?.(contents, 'clipboard-sanitized-write', 'file://', {})).toBe(true);
  });
});

describe('hardenWebContents', () => {
  it('compares navigation with the app URL it was given (dev server origin)', () => {
    const contents = new fakes.FakeWebContents() as FakeWebContents;
    hardenWebContents(contents as never, 'http://localhost:5173/');
    expect(navigate(contents, 'http://localhost:5173/stores')).toBe(false);
    expect(navigate(contents, 'http://localhost:8080/')).toBe(true);
  });
});
