import { describe, expect, it, vi } from 'vitest';
import type { LoreBridge } from '../../src-main/bridge-types';
import type { StoreChangeView } from '../../src-server/admin/contract';
import { AdminError } from '../../src-renderer/api/admin-client';
import { createHttpAdminClient } from '../../src-renderer/api/http-transport';
import { createIpcAdminClient } from '../../src-renderer/api/ipc-transport';

type Call = { url: string; init: RequestInit | undefined };

function fakeFetch(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetch = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    const call = { url: String(url), init };
    calls.push(call);
    return respond(call);
  });
  return { calls, fetch: fetch as unknown as typeof globalThis.fetch };
}

const event = (seq: number, store = 'demo'): StoreChangeView => ({ store, toSeq: seq, count: 1 });
const sse = (...events: StoreChangeView[]) => events.map((e) => `event: change\nid: ${e.toSeq}\ndata: ${JSON.stringify(e)}\n\n`).join('');

describe('HTTP transport', () => {
  it('sends the operation built by the contract with the admin token', async () => {
    const { calls, fetch } = fakeFetch(() => Response.json({ slug: 'demo' }, { status: 201 }));
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test/', token: 't0ken', fetch });
    await expect(client.call('stores.create', { slug: 'demo', name: 'Demo' })).resolves.toEqual({ slug: 'demo' });
    expect(calls[0]!.url).toBe('http://lrs.test/admin/api/stores');
    expect(calls[0]!.init).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer t0ken', 'content-type': 'application/json' } });
    expect(JSON.parse(String(calls[0]!.init?.body))).toEqual({ slug: 'demo', name: 'Demo' });
  });

  it('puts GET inputs in the query string and reads 204 as no value', async () => {
    const { calls, fetch } = fakeFetch(({ init }) => (init?.method === 'DELETE' ? new Response(null, { status: 204 }) : Response.json({ records: [], next: null })));
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test', token: 't', fetch });
    await client.call('statements.search', { slug: 'demo', status: 'rejected', activity: 'http://x.org/a b' });
    expect(calls[0]!.url).toBe('http://lrs.test/admin/api/stores/demo/statements?status=rejected&activity=http%3A%2F%2Fx.org%2Fa+b');
    await expect(client.call('stores.delete', { slug: 'demo' })).resolves.toBeUndefined();
  });

  it('turns the error body into an AdminError with its field, and tells about a refused token', async () => {
    const onUnauthorized = vi.fn();
    const { fetch } = fakeFetch(({ url }) =>
      url.endsWith('/stores')
        ? Response.json({ error: { status: 400, code: 'invalid_body', message: 'a slug has 2 to 63 characters', field: 'slug' } }, { status: 400 })
        : Response.json({ error: { status: 401, code: 'unauthorized', message: 'bad token' } }, { status: 401 }),
    );
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test', token: 't', fetch, onUnauthorized });
    const error = await client.call('stores.create', { slug: 'x', name: 'X' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AdminError);
    expect(error).toMatchObject({ status: 400, field: 'slug', message: 'a slug has 2 to 63 characters' });
    expect(onUnauthorized).not.toHaveBeenCalled();
    await expect(client.call('status.get', {})).rejects.toMatchObject({ status: 401 });
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });

  it('reports an unreachable service as status 0', async () => {
    const { fetch } = fakeFetch(() => Promise.reject(new TypeError('fetch failed')));
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test', token: 't', fetch });
    await expect(client.call('status.get', {})).rejects.toMatchObject({ status: 0, code: 'unreachable' });
  });

  it('streams live events with the Authorization header and reconnects when the stream ends', async () => {
    let connections = 0;
    const { calls, fetch } = fakeFetch(() => {
      connections++;
      const body = connections === 1 ? sse(event(1), event(2, 'other')) : sse(event(3));
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test', token: 't', fetch });
    const received: number[] = [];
    const states: boolean[] = [];
    const unsubscribe = client.subscribe((e) => received.push(e.toSeq), { store: 'demo', onConnectionChange: (c) => states.push(c) });
    await vi.waitFor(() => expect(received).toEqual([1, 3]), { timeout: 3000 });
    unsubscribe();
    expect(calls[0]!.url).toBe('http://lrs.test/admin/api/events?store=demo');
    expect(calls[0]!.init?.headers).toMatchObject({ authorization: 'Bearer t', accept: 'text/event-stream' });
    expect(states.slice(0, 3)).toEqual([true, false, true]);
    // The stream came back with the last change it read: the service tells what changed meanwhile.
    expect(calls[0]!.init?.headers).not.toHaveProperty('last-event-id');
    expect(calls[1]!.init?.headers).toMatchObject({ 'last-event-id': '2' });
  });
});

describe('IPC transport', () => {
  function fakeBridge(result: Awaited<ReturnType<LoreBridge['admin']>>) {
    const listeners = new Set<(e: StoreChangeView) => void>();
    let streamUp = false;
    const streamListeners = new Set<(connected: boolean) => void>();
    const bridge = {
      admin: vi.fn(async () => result),
      onAdminEvent: (listener: (e: StoreChangeView) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      connection: async () => ({ kind: 'local' as const, url: 'http://127.0.0.1:8411', label: 'Local service' }),
      adminStream: async () => streamUp,
      onAdminStream: (listener: (connected: boolean) => void) => {
        streamListeners.add(listener);
        return () => streamListeners.delete(listener);
      },
    };
    return {
      bridge: bridge as unknown as LoreBridge,
      admin: bridge.admin,
      emit: (e: StoreChangeView) => listeners.forEach((l) => l(e)),
      setStream: (connected: boolean) => {
        streamUp = connected;
        streamListeners.forEach((l) => l(connected));
      },
    };
  }

  it('forwards the operation name and input and returns the value', async () => {
    const { bridge, admin } = fakeBridge({ ok: true, value: { stores: [] } });
    await expect(createIpcAdminClient(bridge).call('stores.list', {})).resolves.toEqual({ stores: [] });
    expect(admin).toHaveBeenCalledWith('stores.list', {});
  });

  it("says whether the main process's stream is up, now and as it changes", async () => {
    const { bridge, setStream } = fakeBridge({ ok: true, value: undefined });
    setStream(true);
    const states: boolean[] = [];
    const unsubscribe = createIpcAdminClient(bridge).subscribe(() => {}, { onConnectionChange: (c) => states.push(c) });
    await vi.waitFor(() => expect(states).toEqual([true]));
    setStream(false);
    setStream(true);
    unsubscribe();
    setStream(false);
    expect(states).toEqual([true, false, true]);
  });

  it('rejects with an AdminError that keeps the field', async () => {
    const { bridge } = fakeBridge({ ok: false, error: { status: 409, code: 'slug_taken', message: 'taken', field: 'slug' } });
    await expect(createIpcAdminClient(bridge).call('stores.create', { slug: 'demo', name: 'D' })).rejects.toMatchObject({ name: 'AdminError', status: 409, field: 'slug' });
  });

  it('relays live events of the chosen Store until unsubscribed', () => {
    const { bridge, emit } = fakeBridge({ ok: true, value: undefined });
    const seen: number[] = [];
    const unsubscribe = createIpcAdminClient(bridge).subscribe((e) => seen.push(e.toSeq), { store: 'demo' });
    emit(event(1));
    emit(event(2, 'other'));
    unsubscribe();
    emit(event(3));
    expect(seen).toEqual([1]);
  });
});

describe('Download backup through either transport', () => {
  it('HTTP: posts to the backups path with the token and saves the file under the served name', async () => {
    const { calls, fetch } = fakeFetch(
      () => new Response('SQLite format 3\0', { headers: { 'content-type': 'application/vnd.sqlite3', 'content-disposition': 'attachment; filename="lore-backup-1.sqlite"' } }),
    );
    const saved: { name: string; text: string }[] = [];
    const saveFile = (blob: Blob, name: string) => void blob.text().then((text) => saved.push({ name, text }));
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test', token: 't0ken', fetch, saveFile });
    await expect(client.downloadBackup()).resolves.toEqual({ saved: true, name: 'lore-backup-1.sqlite' });
    expect(calls[0]!.url).toBe('http://lrs.test/admin/api/backups');
    expect(calls[0]!.init).toMatchObject({ method: 'POST', headers: { authorization: 'Bearer t0ken' } });
    await vi.waitFor(() => expect(saved).toEqual([{ name: 'lore-backup-1.sqlite', text: 'SQLite format 3\0' }]));
  });

  it('HTTP: rejects with the service error and saves nothing', async () => {
    const { fetch } = fakeFetch(() => Response.json({ error: { status: 501, code: 'backup_not_supported', message: 'no backups here' } }, { status: 501 }));
    const saveFile = vi.fn();
    const client = createHttpAdminClient({ baseUrl: 'http://lrs.test', token: 't', fetch, saveFile });
    await expect(client.downloadBackup()).rejects.toMatchObject({ name: 'AdminError', status: 501, code: 'backup_not_supported' });
    expect(saveFile).not.toHaveBeenCalled();
  });

  it('IPC: returns the saved path, treats a cancelled dialog as no backup, and rejects on errors', async () => {
    const answers: Awaited<ReturnType<LoreBridge['saveBackup']>>[] = [
      { ok: true, path: '/home/ada/lore.sqlite' },
      { ok: false, error: { status: 0, code: 'canceled', message: 'not saved' } },
      { ok: false, error: { status: 503, code: 'service_stopped', message: 'stopped' } },
    ];
    const bridge = { saveBackup: vi.fn(async () => answers.shift()!) } as unknown as LoreBridge;
    const client = createIpcAdminClient(bridge);
    await expect(client.downloadBackup()).resolves.toEqual({ saved: true, name: '/home/ada/lore.sqlite' });
    await expect(client.downloadBackup()).resolves.toEqual({ saved: false });
    await expect(client.downloadBackup()).rejects.toBeInstanceOf(AdminError);
  });
});
