import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoreChangeView } from '../../src-server/admin/contract';
import type { FetchLike } from '../../src-main/admin-forwarder';
import type { ConnectionDescription } from '../../src-main/bridge-types';
import { createConnectionProfiles } from '../../src-main/connection-profiles';
import type { SecretBox } from '../../src-main/connection-profiles';
import { createDesktopController, probeWith, type DesktopControllerOptions } from '../../src-main/desktop-controller';
import type { DesktopController } from '../../src-main/desktop-controller';
import type { LocalSettings } from '../../src-main/desktop-contract';
import { createServiceSupervisor } from '../../src-main/service-supervisor';
import type { ServiceChild } from '../../src-main/service-supervisor';

const secrets: SecretBox = {
  isAvailable: () => true,
  encrypt: (plain) => Buffer.from(plain).toString('base64').split('').reverse().join(''),
  decrypt: (sealed) => Buffer.from(sealed.split('').reverse().join(''), 'base64').toString(),
};

class Child implements ServiceChild {
  pid = 77;
  exitListener?: (code: number | null) => void;
  messageListener?: (message: unknown) => void;
  onExit(listener: (code: number | null) => void) {
    this.exitListener = listener;
  }
  onMessage(listener: (message: unknown) => void) {
    this.messageListener = listener;
  }
  requestStop() {
    queueMicrotask(() => this.exitListener?.(0));
  }
  kill() {
    this.exitListener?.(null);
  }
}

const STATUS = { version: '0.1.0', startedAt: 'x', stores: 0, statements: 0, rejections: 0, databaseBytes: 0 };
const sse = (events: StoreChangeView[]) =>
  new Response(new ReadableStream({
    start(controller) {
      for (const e of events) controller.enqueue(new TextEncoder().encode(`event: change\ndata: ${JSON.stringify(e)}\n\n`));
      // Left open, like a live stream.
    },
  }), { status: 200, headers: { 'content-type': 'text/event-stream' } });

let dir: string;
let controller: DesktopController | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lore-controller-'));
});
afterEach(() => {
  controller?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function setup(options: { remoteAccepts?: boolean; chooseFolder?: DesktopControllerOptions['chooseFolder']; repairData?: DesktopControllerOptions['repairData'] } = {}) {
  const calls: { url: string; auth: string | undefined; method: string | undefined }[] = [];
  const remoteEvents: StoreChangeView[] = [];
  const fetchImpl: FetchLike = async (url, init) => {
    const auth = (init.headers as Record<string, string>)['authorization'];
    calls.push({ url, auth, method: init.method });
    if (url.endsWith('/admin/api/events')) return sse(url.startsWith('https://remote.example') ? remoteEvents : []);
    if (url.startsWith('https://remote.example') && options.remoteAccepts === false) {
      return Response.json({ error: { status: 401, code: 'unauthenticated', message: 'The admin token is not valid.' } }, { status: 401 });
    }
    return Response.json(STATUS);
  };
  const children: Child[] = [];
  let applied: LocalSettings | null = null;
  const profiles = createConnectionProfiles({
    store: {
      read: () => undefined,
      write: () => {},
    },
    secrets,
    probe: probeWith(fetchImpl),
    generateToken: () => 'local-admin-token',
  });
  const supervisor = createServiceSupervisor({
    spawn: () => {
      applied = profiles.localSettings();
      const child = new Child();
      children.push(child);
      return child;
    },
  });
  const connections: ConnectionDescription[] = [];
  const events: StoreChangeView[] = [];
  controller = createDesktopController({
    supervisor,
    profiles,
    dataDir: join(dir, 'data'),
    appliedSettings: () => applied,
    fetch: fetchImpl,
    emitConnection: (c) => connections.push(c),
    emitAdminEvent: (e) => events.push(e),
    relayBackoffMs: { initial: 10, max: 20 },
    ...(options.chooseFolder && { chooseFolder: options.chooseFolder }),
    ...(options.repairData && { repairData: options.repairData }),
  });
  const ready = (url = 'http://127.0.0.1:8411') => children.at(-1)?.messageListener?.({ type: 'ready', url });
  return { controller, supervisor, profiles, calls, connections, events, remoteEvents, children, ready };
}

describe('the desktop controller: the local connection', () => {
  it('describes the local service at its configured address until it runs, then at its real URL', () => {
    const { controller, supervisor, ready } = setup();
    expect(controller.connection()).toEqual({ kind: 'local', url: 'http://127.0.0.1:8411', label: 'Local service' });
    supervisor.start();
    ready('http://127.0.0.1:45678');
    expect(controller.connection().url).toBe('http://127.0.0.1:45678');
  });

  it('answers admin calls with service_unavailable while the local service is not running', async () => {
    const { controller, supervisor, calls } = setup();
    await expect(controller.admin('status.get', {})).resolves.toMatchObject({
      ok: false,
      error: { status: 503, code: 'service_unavailable', message: expect.stringMatching(/stopped\. Start it on the Connection screen/) },
    });
    supervisor.start();
    await expect(controller.admin('status.get', {})).resolves.toMatchObject({ ok: false, error: { message: expect.stringMatching(/starting/) } });
    expect(calls).toHaveLength(0);
  });

  it('forwards admin calls to the running local service with the local admin token', async () => {
    const { controller, supervisor, ready, calls } = setup();
    supervisor.start();
    ready('http://127.0.0.1:45678');
    await expect(controller.admin('status.get', {})).resolves.toEqual({ ok: true, value: STATUS });
    expect(calls.find((c) => c.url === 'http://127.0.0.1:45678/admin/api/status')?.auth).toBe('Bearer local-admin-token');
  });

  it('follows the local service’s live events once it runs', async () => {
    const { supervisor, ready, calls } = setup();
    supervisor.start();
    expect(calls).toHaveLength(0);
    ready('http://127.0.0.1:45678');
    await vi.waitFor(() => expect(calls.map((c) => c.url)).toContain('http://127.0.0.1:45678/admin/api/events'));
  });
});

describe('the desktop controller: desktop operations', () => {
  it('refuses unknown operations and invalid inputs with the field at fault', async () => {
    const { controller } = setup();
    await expect(controller.desktop('service.explode', {})).resolves.toMatchObject({ ok: false, error: { status: 400, code: 'unknown_operation' } });
    await expect(controller.desktop('local.update', { port: 70000, host: '127.0.0.1' })).resolves.toMatchObject({
      ok: false,
      error: { status: 400, code: 'invalid_input', field: 'port', message: 'a port is 0 to 65535 (port)' },
    });
    await expect(controller.desktop('local.update', { port: 8000, host: '127.0.0.1; rm -rf /' })).resolves.toMatchObject({
      ok: false,
      error: { field: 'host' },
    });
  });

  it('starts, stops and restarts the local service', async () => {
    const { controller, children, ready } = setup();
    await expect(controller.desktop('service.start', {})).resolves.toMatchObject({ ok: true, value: { local: { status: { state: 'starting' } } } });
    ready();
    const stopped = await controller.desktop('service.stop', {});
    expect(stopped).toMatchObject({ ok: true, value: { local: { status: { state: 'stopped' }, applied: null } } });
    await controller.desktop('service.restart', {});
    expect(children).toHaveLength(2);
  });

  it('saves new local settings, says a restart is needed, and applies them on restart', async () => {
    const { controller, ready } = setup();
    await controller.desktop('service.start', {});
    ready();
    const saved = await controller.desktop('local.update', { port: 9100, host: '0.0.0.0' });
    expect(saved).toMatchObject({
      ok: true,
      value: { local: { settings: { port: 9100, host: '0.0.0.0' }, applied: { port: 8411, host: '127.0.0.1' }, restartNeeded: true } },
    });
    const restarted = await controller.desktop('service.restart', {});
    expect(restarted).toMatchObject({ ok: true, value: { local: { applied: { port: 9100, host: '0.0.0.0' }, restartNeeded: false } } });
  });

  it('asks for a backup folder, keeps it with the other settings, and a restart starts the service with it', async () => {
    const asked: Array<string | undefined> = [];
    let answer: string | undefined = '/media/usb/lore-backups';
    const { controller, ready, children } = setup({ chooseFolder: async (_title, current) => (asked.push(current), answer) });
    await controller.desktop('service.start', {});
    ready();
    const chosen = await controller.desktop('local.chooseBackupDir', {});
    expect(chosen).toMatchObject({ ok: true, value: { local: { settings: { port: 8411, host: '127.0.0.1', backupDir: '/media/usb/lore-backups' }, restartNeeded: true } } });
    // A cancelled dialog changes nothing.
    answer = undefined;
    await controller.desktop('local.chooseBackupDir', {});
    expect(asked).toEqual([undefined, '/media/usb/lore-backups']);
    // Saving the port keeps the folder.
    const saved = await controller.desktop('local.update', { port: 9100, host: '127.0.0.1', backupDir: '/media/usb/lore-backups' });
    expect(saved).toMatchObject({ ok: true, value: { local: { settings: { backupDir: '/media/usb/lore-backups' } } } });
    await controller.desktop('service.restart', {});
    expect(children.length).toBe(2);
    expect(controller.state().local.applied).toMatchObject({ backupDir: '/media/usb/lore-backups' });
  });

  it('repairs the local data only with the service stopped, shows what the repair did, and starts the service', async () => {
    let repairs = 0;
    const { controller, ready, children } = setup({ repairData: async () => (repairs++, 'lost: 1 journal record') });
    const stopped = await controller.desktop('local.repair', {});
    expect(stopped).toMatchObject({ ok: true, value: { local: { lastRepair: 'lost: 1 journal record' } } });
    expect(repairs).toBe(1);
    expect(children).toHaveLength(1);
    ready();
    const refused = await controller.desktop('local.repair', {});
    expect(refused).toMatchObject({ ok: false, error: { status: 409, code: 'service_running' } });
    expect(repairs).toBe(1);
  });

  it('tests a remote before saving it, then manages it: calls, live events and the header switch', async () => {
    const { controller, calls, connections, events, remoteEvents } = setup();
    remoteEvents.push({ store: 'prod', toSeq: 1, count: 1 });
    const saved = await controller.desktop('remote.save', { label: 'Prod', url: 'https://remote.example/', token: 'remote-token' });
    expect(saved).toMatchObject({ ok: true, value: { connection: { kind: 'remote', url: 'https://remote.example', label: 'Prod' } } });
    expect(JSON.stringify(saved)).not.toContain('remote-token');
    expect(calls[0]).toEqual({ url: 'https://remote.example/admin/api/status', auth: 'Bearer remote-token', method: 'GET' });
    expect(connections.at(-1)).toEqual({ kind: 'remote', url: 'https://remote.example', label: 'Prod' });

    await controller.admin('stores.list', {});
    expect(calls.at(-1)?.url).toBe('https://remote.example/admin/api/stores');
    await vi.waitFor(() => expect(events).toEqual(remoteEvents));

    const back = await controller.desktop('connection.activate', { id: 'local' });
    expect(back).toMatchObject({ ok: true, value: { connection: { kind: 'local' } } });
    expect(connections.at(-1)?.kind).toBe('local');
  });

  it('saves nothing when the remote refuses the token, and returns the reason as plain data', async () => {
    const { controller } = setup({ remoteAccepts: false });
    const result = await controller.desktop('remote.save', { label: 'Prod', url: 'https://remote.example', token: 'bad' });
    expect(result).toEqual({
      ok: false,
      error: { status: 401, code: 'unauthenticated', message: 'The connection test failed, nothing was saved: The admin token is not valid.' },
    });
    expect((await controller.desktop('desktop.state', {})).ok && (await controller.desktop('desktop.state', {}))).toMatchObject({
      value: { profiles: [{ id: 'local' }] },
    });
  });

  it('updates the keep-running preference', async () => {
    const { controller } = setup();
    await expect(controller.desktop('preferences.update', { keepServiceRunning: true })).resolves.toMatchObject({
      ok: true,
      value: { preferences: { keepServiceRunning: true } },
    });
  });
});
