/**
 * The built desktop bundle, run under plain Node with a stand-in `electron`
 * (fixtures/electron-stub): proves that what electron-vite emits wires the hardening, loads the
 * built renderer and supervises the built service entry — not only that the sources do.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARDENED_WEB_PREFERENCES, RENDERER_CSP } from '../../src-main/security';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const stubRegister = fileURLToPath(new URL('./fixtures/electron-stub/register.mjs', import.meta.url));
const electronVite = join(repo, 'node_modules/electron-vite/bin/electron-vite.js');

interface StubRecord {
  singleInstanceLockRequested: boolean;
  sandboxEnabled: boolean;
  windows: {
    options: { webPreferences: Record<string, unknown> } & Record<string, unknown>;
    loads: { kind: 'file' | 'url'; target: string }[];
    shown: boolean;
  }[];
  ipcHandlers: string[];
  forks: { modulePath: string; args: string[]; messages: unknown[]; killed: boolean }[];
  openExternal: string[];
  events: string[];
  quit: boolean;
  errors: string[];
  scenario?: {
    navigation: { url: string; prevented: boolean }[];
    webviewPrevented: boolean;
    windowOpen: { url: string; action: string }[];
    permissionRequests: { permission: string; granted: unknown }[];
    permissionChecks: { permission: string; granted: unknown }[];
    ipc: { channel: string; senderUrl: string; result?: { state: string }; error?: string }[];
  };
}

let work: string;
let out: string;

/** Runs out/main/index.js under Node with the stub; resolves with what the stub recorded. */
async function runBuiltMain(env: Record<string, string> = {}): Promise<StubRecord> {
  const recordPath = join(work, `record-${Math.random().toString(36).slice(2)}.json`);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    LORE_ELECTRON_STUB_RECORD: recordPath,
    LORE_ELECTRON_STUB_USER_DATA: join(work, 'user-data'),
    ...env,
  };
  if (!('ELECTRON_RENDERER_URL' in env)) delete childEnv['ELECTRON_RENDERER_URL'];
  await run(process.execPath, ['--import', pathToFileURL(stubRegister).href, join(out, 'main/index.js')], {
    env: childEnv,
    timeout: 15_000,
  });
  return JSON.parse(readFileSync(recordPath, 'utf8')) as StubRecord;
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

describe('the built desktop app under a stand-in electron', () => {
  let record: StubRecord;

  beforeAll(async () => {
    record = await runBuiltMain();
  });

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

  it('answers the status channel for the console page only', () => {
    const [fromConsole, fromElsewhere] = record.scenario?.ipc ?? [];
    expect(record.ipcHandlers).toEqual(['lore:service-status']);
    expect(fromConsole?.result?.state).toBe('running');
    expect(fromElsewhere?.error).toMatch(/IPC refused/);
  });

  it('starts the built service entry and stops it gracefully before quitting', () => {
    expect(record.forks).toHaveLength(1);
    const [service] = record.forks;
    expect(service?.modulePath).toBe(join(out, 'main/service-process.js'));
    expect(existsSync(service!.modulePath)).toBe(true);
    expect(service?.args).toEqual(['--data-dir', join(work, 'user-data', 'userData', 'data')]);
    expect(service?.messages).toEqual([{ type: 'shutdown' }]);
    expect(service?.killed).toBe(false);
    expect(record.events).toEqual(['ready', 'app.quit', 'before-quit prevented', 'app.quit']);
  });

  it('uses the dev server only when unpackaged, and only a loopback one', async () => {
    const dev = await runBuiltMain({ ELECTRON_RENDERER_URL: 'http://localhost:5173/' });
    expect(dev.windows[0]?.loads).toEqual([{ kind: 'url', target: 'http://localhost:5173/' }]);

    const packaged = await runBuiltMain({ ELECTRON_RENDERER_URL: 'http://localhost:5173/', LORE_ELECTRON_STUB_PACKAGED: '1' });
    expect(packaged.windows[0]?.loads).toEqual([{ kind: 'file', target: join(out, 'renderer/index.html') }]);

    const remote = await runBuiltMain({ ELECTRON_RENDERER_URL: 'https://evil.example/' });
    expect(remote.windows[0]?.loads[0]?.kind).toBe('file');
  });
});

describe('the built preload', () => {
  it('is a CommonJS script that needs nothing but electron (a sandboxed preload gets no more)', () => {
    const code = readFileSync(join(out, 'preload/preload.cjs'), 'utf8');
    const required: string[] = [];
    const exposed: Record<string, unknown> = {};
    const invoked: string[] = [];
    const fakeElectron = {
      contextBridge: {
        exposeInMainWorld: (key: string, api: unknown) => {
          exposed[key] = api;
        },
      },
      ipcRenderer: {
        invoke: (channel: string) => {
          invoked.push(channel);
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
    const bridge = exposed['lore'] as { serviceStatus: () => Promise<unknown>; onServiceStatus: unknown };
    expect(Object.keys(bridge).sort()).toEqual(['onServiceStatus', 'serviceStatus']);
    void bridge.serviceStatus();
    expect(invoked).toEqual(['lore:service-status']);
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
