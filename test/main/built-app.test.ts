/**
 * The built desktop bundle, run under plain Node with a stand-in `electron`
 * (fixtures/electron-stub): proves that what electron-vite emits wires the hardening, loads the
 * built renderer and supervises the built service entry — not only that the sources do.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoreBridge } from '../../src-main/bridge-types';
import { HARDENED_WEB_PREFERENCES, RENDERER_CSP } from '../../src-main/security';
import { SERVICE_NODE_FLAGS } from '../../src-server/service/node-flags';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const stubRegister = fileURLToPath(new URL('./fixtures/electron-stub/register.mjs', import.meta.url));
const electronVite = join(repo, 'node_modules/electron-vite/bin/electron-vite.js');

interface Fork {
  modulePath: string;
  args: string[];
  execArgv: string[];
  env: { hasAdminToken: boolean; LORE_SQLJS_WASM?: string };
  messages: unknown[];
  received: unknown[];
  output: string;
  killed: boolean;
  exit?: { code: number | null; signal: string | null };
}

interface IpcOutcome {
  channel: string;
  senderUrl: string;
  result?: { ok?: boolean; value?: Record<string, unknown>; error?: Record<string, unknown> } & Record<string, unknown>;
  error?: string;
}

interface HttpOutcome {
  status?: number;
  contentType?: string | null;
  body?: string;
  error?: string;
}

interface StubRecord {
  singleInstanceLockRequested: boolean;
  sandboxEnabled: boolean;
  windows: {
    options: { webPreferences: Record<string, unknown> } & Record<string, unknown>;
    loads: { kind: 'file' | 'url'; target: string }[];
    shown: boolean;
  }[];
  ipcHandlers: string[];
  forks: Fork[];
  openExternal: string[];
  pushes: { channel: string; payload: unknown }[];
  trays: { icon: string; tooltips: string[]; menus: { label?: string; type?: string; enabled?: boolean; checked?: boolean }[][]; destroyed: boolean }[];
  events: string[];
  quit: boolean;
  errors: string[];
  scenario?: {
    navigation: { url: string; prevented: boolean }[];
    webviewPrevented: boolean;
    windowOpen: { url: string; action: string }[];
    permissionRequests: { permission: string; granted: unknown }[];
    permissionChecks: { permission: string; granted: unknown }[];
    running: { state: string; url?: string; message?: string };
    ipc: IpcOutcome[];
    admin: Record<'createStore' | 'duplicateStore' | 'invalidInput' | 'unknownOperation' | 'malformed' | 'testStatement', IpcOutcome>;
    liveEvent: Record<string, unknown>;
    http: Record<'health' | 'console' | 'adminApiWithoutToken', HttpOutcome>;
    trayMenu?: { label?: string }[];
    afterClose?: { quit: boolean; health: HttpOutcome };
    reopenedWindows?: number;
  };
}

let work: string;
let out: string;

/**
 * Runs out/main/index.js under Node with the stub, in a fresh userData whose settings put the
 * local service on a free port; resolves with what the stub recorded and the userData path.
 */
async function runBuiltMain(
  env: Record<string, string> = {},
  settings: Record<string, unknown> = {},
): Promise<StubRecord & { userData: string }> {
  const runId = Math.random().toString(36).slice(2);
  const recordPath = join(work, `record-${runId}.json`);
  const userDataRoot = join(work, `user-data-${runId}`);
  const userData = join(userDataRoot, 'userData');
  mkdirSync(userData, { recursive: true });
  writeFileSync(
    join(userData, 'desktop-settings.json'),
    JSON.stringify({ version: 1, local: { port: 0, host: '127.0.0.1' }, ...settings }),
  );
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    LORE_ELECTRON_STUB_RECORD: recordPath,
    LORE_ELECTRON_STUB_USER_DATA: userDataRoot,
    ...env,
  };
  if (!('ELECTRON_RENDERER_URL' in env)) delete childEnv['ELECTRON_RENDERER_URL'];
  for (const name of ['LRS_ADMIN_TOKEN', 'LRS_PORT', 'LRS_HOST', 'LRS_DATA_DIR']) delete childEnv[name];
  await run(process.execPath, ['--import', pathToFileURL(stubRegister).href, join(out, 'main/index.js')], {
    env: childEnv,
    timeout: 40_000,
  });
  return { ...(JSON.parse(readFileSync(recordPath, 'utf8')) as StubRecord), userData };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'lore-built-app-'));
  out = join(work, 'out');
  // Externalized dependencies of the bundle resolve from the repository's node_modules.
  symlinkSync(join(repo, 'node_modules'), join(work, 'node_modules'), 'dir');
  // A fresh build every run, into its own directory: never a stale out/.
  await run(process.execPath, [electronVite, 'build', '--outDir', out, '--logLevel', 'warn'], {
    cwd: repo,
    timeout: 60_000,
  });
}, 90_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const ipc = (record: StubRecord, channel: string, fromConsole: boolean) =>
  record.scenario?.ipc.find((i) => i.channel === channel && (i.senderUrl === 'https://evil.example/') !== fromConsole);

describe('the built desktop app under a stand-in electron', () => {
  let record: StubRecord & { userData: string };

  beforeAll(async () => {
    record = await runBuiltMain();
  }, 60_000);

  it('runs to a clean quit without errors', () => {
    expect(record.errors).toEqual([]);
    expect(record.quit).toBe(true);
  });

  it('takes the single-instance lock and sandboxes every renderer', () => {
    expect(record.singleInstanceLockRequested).toBe(true);
    expect(record.sandboxEnabled).toBe(true);
  });

  it('creates one window with the hardened webPreferences and the built preload', () => {
    expect(record.windows).toHaveLength(1);
    const { webPreferences } = record.windows[0]!.options;
    expect(webPreferences).toMatchObject(HARDENED_WEB_PREFERENCES);
    expect(webPreferences['preload']).toBe(join(out, 'preload/preload.cjs'));
    expect(existsSync(webPreferences['preload'] as string)).toBe(true);
  });

  it('loads the built renderer index.html from disk and shows the window', () => {
    const [window] = record.windows;
    expect(window?.loads).toEqual([{ kind: 'file', target: join(out, 'renderer/index.html') }]);
    expect(window?.shown).toBe(true);
  });

  it('blocks navigation away, webviews and new windows; opens only https links outside', () => {
    expect(record.scenario?.navigation.map((n) => n.prevented)).toEqual([true, true, false]);
    expect(record.scenario?.webviewPrevented).toBe(true);
    expect(record.scenario?.windowOpen.map((w) => w.action)).toEqual(['deny', 'deny', 'deny']);
    expect(record.openExternal).toEqual(['https://adlnet.gov/projects/xapi/']);
  });

  it('denies permission requests', () => {
    expect(record.scenario?.permissionRequests.map((p) => p.granted)).toEqual([false, false, false]);
    expect(record.scenario?.permissionChecks.map((p) => p.granted)).toEqual([false, false]);
  });

  it('starts the built service entry with the saved port and address, its data directory, token and wasm', () => {
    expect(record.forks).toHaveLength(1);
    const [service] = record.forks;
    expect(service?.modulePath).toBe(join(out, 'main/service-process.js'));
    expect(service?.args).toEqual(['--port', '0', '--host', '127.0.0.1', '--data-dir', join(record.userData, 'data')]);
    expect(service?.execArgv).toEqual(SERVICE_NODE_FLAGS);
    expect(service?.env.hasAdminToken).toBe(true);
    expect(service?.env.LORE_SQLJS_WASM).toMatch(/node_modules[\\/]sql\.js[\\/]dist[\\/]sql-wasm\.wasm$/);
    expect(existsSync(service!.env.LORE_SQLJS_WASM!)).toBe(true);
  });

  it('reports the service running, with its URL, once the service says it listens', () => {
    const [service] = record.forks;
    const ready = service?.received[0] as { type: string; url: string };
    expect(ready).toMatchObject({ type: 'ready', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(record.scenario?.running).toMatchObject({ state: 'running', url: ready.url });
    const pushed = record.pushes.filter((p) => p.channel === 'lore:service-status').map((p) => p.payload as { state: string; url?: string });
    expect(pushed.filter((s) => s.state === 'running')).toContainEqual(expect.objectContaining({ url: ready.url }));
    expect(pushed.every((s) => (s.state === 'running') === (s.url !== undefined))).toBe(true);
  });

  it('keeps the local admin token encrypted in userData and never prints it', () => {
    const settings = JSON.parse(readFileSync(join(record.userData, 'desktop-settings.json'), 'utf8')) as { localAdminToken: string };
    const sealed = Buffer.from(settings.localAdminToken, 'base64').toString();
    expect(sealed).toMatch(/^stub-sealed:/);
    const token = Buffer.from(sealed.slice('stub-sealed:'.length), 'base64').toString();
    expect(token).toMatch(/^lore_admin_/);
    expect(record.forks[0]?.output).toMatch(/listening on http/);
    expect(record.forks[0]?.output).not.toContain(token);
    expect(JSON.stringify(record.pushes)).not.toContain(token);
    expect(JSON.stringify(record.scenario)).not.toContain(token);
  });

  it('registers one handler per channel and answers the console page only', () => {
    expect([...record.ipcHandlers].sort()).toEqual(['lore:admin', 'lore:admin-stream', 'lore:backup', 'lore:connection', 'lore:desktop', 'lore:export', 'lore:import-file', 'lore:launch', 'lore:package', 'lore:report', 'lore:service-status']);
    expect(ipc(record, 'lore:service-status', true)?.result?.['state']).toBe('running');
    expect(ipc(record, 'lore:service-status', false)?.error).toMatch(/IPC refused/);
    expect(ipc(record, 'lore:connection', true)?.result).toEqual({ kind: 'local', url: record.scenario?.running.url, label: 'Local service' });
    expect(ipc(record, 'lore:connection', false)?.error).toMatch(/IPC refused/);
    expect(ipc(record, 'lore:admin', false)?.result).toMatchObject({ ok: false, error: { status: 403, code: 'forbidden' } });
    expect(ipc(record, 'lore:desktop', false)?.result).toMatchObject({ ok: false, error: { status: 403 } });
    expect(ipc(record, 'lore:backup', false)?.result).toMatchObject({ ok: false, error: { status: 403, code: 'forbidden' } });
    expect(ipc(record, 'lore:backup', true)?.result).toMatchObject({ ok: false, error: { code: 'canceled' } });
    expect(ipc(record, 'lore:package', false)?.result).toMatchObject({ ok: false, error: { status: 403, code: 'forbidden' } });
    expect(ipc(record, 'lore:launch', false)?.result).toMatchObject({ ok: false, error: { status: 403, code: 'forbidden' } });
    expect(ipc(record, 'lore:package', true)?.result).toMatchObject({ ok: false, error: { status: 404, code: 'store_not_found' } });
    expect(ipc(record, 'lore:import-file', false)?.result).toMatchObject({ ok: false, error: { status: 403, code: 'forbidden' } });
    expect(ipc(record, 'lore:import-file', true)?.result).toMatchObject({ ok: false, error: { status: 404, code: 'store_not_found' } });
    expect(ipc(record, 'lore:launch', true)?.result).toMatchObject({ ok: false, error: { status: 400, code: 'launch_url_refused' } });
    expect(ipc(record, 'lore:report', false)?.result).toMatchObject({ ok: false, error: { status: 403, code: 'forbidden' } });
    expect(ipc(record, 'lore:report', true)?.result).toMatchObject({ ok: false, error: { status: 404, code: 'store_not_found' } });
    expect(ipc(record, 'lore:desktop', true)?.result).toMatchObject({
      ok: true,
      value: { connection: { kind: 'local' }, local: { status: { state: 'running' }, settings: { port: 0 } }, preferences: { keepServiceRunning: false } },
    });
  });

  it('forwards admin calls from the console to the real service over HTTP, with the local token', () => {
    expect(ipc(record, 'lore:admin', true)?.result).toMatchObject({ ok: true, value: { version: expect.any(String) } });
    const { admin } = record.scenario!;
    expect(admin.createStore.result).toMatchObject({ ok: true, value: { slug: 'built-app', name: 'Built app', environment: 'test' } });
    expect(admin.duplicateStore.result).toMatchObject({ ok: false, error: { status: 409 } });
    expect(admin.invalidInput.result).toMatchObject({ ok: false, error: { status: 400, code: 'invalid_input', field: 'slug' } });
    expect(admin.unknownOperation.result).toMatchObject({ ok: false, error: { status: 400, code: 'unknown_operation' } });
    expect(admin.malformed.result).toMatchObject({ ok: false, error: { code: 'unknown_operation' } });
  });

  it('relays the Store change of a statement the service received to the console', () => {
    const { admin, liveEvent } = record.scenario!;
    expect(admin.testStatement.result).toMatchObject({ ok: true, value: { statementId: expect.any(String) } });
    expect(liveEvent).toMatchObject({ store: 'built-app', toSeq: expect.any(Number), count: 1 });
  });

  it('serves the web console at /admin/ from the started service, and guards its API', () => {
    const { http } = record.scenario!;
    expect(http.health).toMatchObject({ status: 200 });
    expect(http.console).toMatchObject({ status: 200, contentType: expect.stringMatching(/^text\/html/) });
    expect(http.console.body).toMatch(/<script[^>]+src="\/admin\/assets\/[\w-]+\.js"/);
    expect(http.adminApiWithoutToken).toMatchObject({ status: 401 });
  });

  it('shows the running service in the tray, with the resources icon', () => {
    const [tray] = record.trays;
    expect(tray?.icon).toBe(join(work, 'resources/icon.png'));
    expect(record.scenario?.trayMenu?.[0]?.label).toBe(`Local service running at ${record.scenario?.running.url}`);
    expect(tray?.tooltips.at(-1)).toMatch(/^Lore LRS — Local service (running|stopped)/);
  });

  it('quits when the window closes (keep-running is off by default) and stops the service gracefully', () => {
    const [service] = record.forks;
    expect(service?.messages).toEqual([{ type: 'shutdown' }]);
    expect(service?.killed).toBe(false);
    expect(service?.exit).toEqual({ code: 0, signal: null });
    expect(record.events).toEqual(['ready', 'window-all-closed', 'app.quit', 'before-quit prevented', 'app.quit']);
    expect(record.trays[0]?.destroyed).toBe(true);
  });

  it('uses the dev server only when unpackaged, and only a loopback one', async () => {
    const dev = await runBuiltMain({ ELECTRON_RENDERER_URL: 'http://localhost:5173/' });
    expect(dev.windows[0]?.loads).toEqual([{ kind: 'url', target: 'http://localhost:5173/' }]);

    const packaged = await runBuiltMain({
      ELECTRON_RENDERER_URL: 'http://localhost:5173/',
      LORE_ELECTRON_STUB_PACKAGED: '1',
      LORE_ELECTRON_STUB_RESOURCES: join(work, 'resources-of-the-package'),
    });
    expect(packaged.windows[0]?.loads).toEqual([{ kind: 'file', target: join(out, 'renderer/index.html') }]);
    // Packaged, the tray icon is the copy electron-builder puts beside app.asar (extraResources).
    expect(packaged.trays[0]?.icon).toBe(join(work, 'resources-of-the-package', 'icon.png'));

    const remote = await runBuiltMain({ ELECTRON_RENDERER_URL: 'https://evil.example/' });
    expect(remote.windows[0]?.loads[0]?.kind).toBe('file');
  }, 120_000);
});

describe('the built desktop app with "keep the service running" on', () => {
  it('keeps the service answering after the window closes, reopens from the tray, and quits from it', async () => {
    const record = await runBuiltMain({ LORE_ELECTRON_STUB_SCENARIO: 'keep-running' }, { keepServiceRunning: true });
    expect(record.errors).toEqual([]);
    expect(record.scenario?.afterClose).toMatchObject({ quit: false, health: { status: 200 } });
    expect(record.scenario?.reopenedWindows).toBe(1);
    expect(record.quit).toBe(true);
    expect(record.forks[0]?.exit).toEqual({ code: 0, signal: null });
    expect(record.events).toEqual(['ready', 'window-all-closed', 'app.quit', 'before-quit prevented', 'app.quit']);
  }, 60_000);
});

describe('the built preload', () => {
  it('is a CommonJS script that needs nothing but electron (a sandboxed preload gets no more)', () => {
    const code = readFileSync(join(out, 'preload/preload.cjs'), 'utf8');
    const required: string[] = [];
    const exposed: Record<string, unknown> = {};
    const invoked: unknown[][] = [];
    const fakeElectron = {
      contextBridge: {
        exposeInMainWorld: (key: string, api: unknown) => {
          exposed[key] = api;
        },
      },
      ipcRenderer: {
        invoke: (...args: unknown[]) => {
          invoked.push(args);
          return Promise.resolve({ state: 'running', restarts: 0 });
        },
        on: () => {},
        removeListener: () => {},
      },
    };
    const module = { exports: {} };
    vm.runInNewContext(code, {
      require: (id: string) => {
        required.push(id);
        if (id !== 'electron') throw new Error(`a sandboxed preload cannot require ${id}`);
        return fakeElectron;
      },
      module,
      exports: module.exports,
    });
    expect(required).toEqual(['electron']);
    const bridge = exposed['lore'] as LoreBridge;
    expect(Object.keys(bridge).sort()).toEqual([
      'admin',
      'adminStream',
      'connection',
      'desktop',
      'importPackage',
      'importStatementsFile',
      'onAdminEvent',
      'onAdminRefusal',
      'onAdminStream',
      'onConnection',
      'onServiceStatus',
      'openLaunch',
      'saveAttemptReport',
      'saveBackup',
      'saveExport',
      'serviceStatus',
    ]);
    void bridge.serviceStatus();
    void bridge.admin('stores.get', { slug: 'demo' });
    void bridge.desktop('service.restart', {});
    void bridge.connection();
    void bridge.saveBackup();
    expect(invoked).toEqual([
      ['lore:service-status'],
      ['lore:admin', { name: 'stores.get', input: { slug: 'demo' } }],
      ['lore:desktop', { name: 'service.restart', input: {} }],
      ['lore:connection'],
      ['lore:backup'],
    ]);
  });

  it('hands listeners the payload only, never the IPC event (it would expose event.sender)', () => {
    const code = readFileSync(join(out, 'preload/preload.cjs'), 'utf8');
    const exposed: Record<string, unknown> = {};
    const listeners = new Map<string, (event: unknown, payload: unknown) => void>();
    const removed: string[] = [];
    const fakeElectron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => (exposed[key] = api) },
      ipcRenderer: {
        invoke: () => Promise.resolve(),
        on: (channel: string, listener: (event: unknown, payload: unknown) => void) => listeners.set(channel, listener),
        removeListener: (channel: string) => removed.push(channel),
      },
    };
    const module = { exports: {} };
    vm.runInNewContext(code, { require: () => fakeElectron, module, exports: module.exports });
    const bridge = exposed['lore'] as LoreBridge;
    const seen: unknown[][] = [];
    const unsubscribe = bridge.onAdminEvent((...args: unknown[]) => seen.push(args));
    bridge.onConnection((...args: unknown[]) => seen.push(args));
    listeners.get('lore:admin-event')?.({ sender: 'secret' }, { store: 'demo', seq: 1 });
    listeners.get('lore:connection')?.({ sender: 'secret' }, { kind: 'local' });
    expect(seen).toEqual([[{ store: 'demo', seq: 1 }], [{ kind: 'local' }]]);
    unsubscribe();
    expect(removed).toEqual(['lore:admin-event']);
  });
});

describe('the built renderer', () => {
  it('carries the CSP and loads only its own bundled script and styles', () => {
    const html = readFileSync(join(out, 'renderer/index.html'), 'utf8');
    expect(html).toContain(`content="${RENDERER_CSP}"`);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(body?.trim(), 'no inline script').toBe('');
      const src = /\bsrc="([^"]+)"/.exec(attributes ?? '')?.[1];
      expect(src, 'a relative, bundled script').toMatch(/^\.\/assets\/[\w-]+\.js$/);
      expect(existsSync(join(out, 'renderer', src!))).toBe(true);
    }
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });
});
