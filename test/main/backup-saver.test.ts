import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FetchLike, TargetResolution } from '../../src-main/admin-forwarder';
import { dispositionFileName, saveBackup, writeStreamToFile } from '../../src-main/backup-saver';
import { startService } from '../../src-server/service/service';
import type { RunningService } from '../../src-server/service/service';

const TOKEN = 'test-admin-token-0123456789';
const target = (url = 'http://lrs.test'): (() => TargetResolution) => () => ({ ok: true, target: { url, token: TOKEN } });
const sqlite = () =>
  new Response(new TextEncoder().encode('SQLite format 3\0rest'), {
    status: 200,
    headers: { 'content-type': 'application/vnd.sqlite3', 'content-disposition': 'attachment; filename="lore-2026.sqlite"' },
  });

function fakeFetch(response: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchImpl: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return response();
  };
  return { calls, fetchImpl };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lore-backup-saver-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dispositionFileName', () => {
  it.each([
    ['attachment; filename="lore-backup.sqlite"', 'lore-backup.sqlite'],
    ['attachment; filename=plain.sqlite', 'plain.sqlite'],
    ["attachment; filename=\"fallback.sqlite\"; filename*=UTF-8''caf%C3%A9.sqlite", 'café.sqlite'],
    ['attachment; filename="../../etc/passwd"', 'passwd'],
    ['attachment; filename=".."', undefined],
    ['attachment', undefined],
    [null, undefined],
  ])('reads %s as %s, never a path', (header, expected) => {
    expect(dispositionFileName(header)).toBe(expected);
  });
});

describe('saveBackup', () => {
  it('posts to the backups path with the admin token, offers the served name and writes the file', async () => {
    const { calls, fetchImpl } = fakeFetch(sqlite);
    const offered: string[] = [];
    const path = join(dir, 'chosen.sqlite');
    const result = await saveBackup({
      resolveTarget: target('http://lrs.test/prefix/'),
      fetch: fetchImpl,
      choosePath: async (name) => {
        offered.push(name);
        return path;
      },
    });
    expect(result).toEqual({ ok: true, path });
    expect(calls[0]?.url).toBe('http://lrs.test/prefix/admin/api/backups');
    expect(calls[0]?.init.method).toBe('POST');
    expect((calls[0]?.init.headers as Record<string, string>)['authorization']).toBe(`Bearer ${TOKEN}`);
    expect(offered).toEqual(['lore-2026.sqlite']);
    expect(readFileSync(path, 'utf8').startsWith('SQLite format 3')).toBe(true);
    expect(existsSync(`${path}.part`)).toBe(false);
  });

  it('writes nothing when the user cancels the dialog', async () => {
    const written: string[] = [];
    const result = await saveBackup({
      resolveTarget: target(),
      fetch: fakeFetch(sqlite).fetchImpl,
      choosePath: async () => undefined,
      writeFile: async (path) => void written.push(path),
    });
    expect(result).toMatchObject({ ok: false, error: { code: 'canceled' } });
    expect(written).toEqual([]);
  });

  it('returns the service error body and asks for no path when the service refuses', async () => {
    let asked = false;
    const body = { error: { status: 501, code: 'backup_not_supported', message: 'This storage takes no backups itself' } };
    const result = await saveBackup({
      resolveTarget: target(),
      fetch: fakeFetch(() => new Response(JSON.stringify(body), { status: 501 })).fetchImpl,
      choosePath: async () => {
        asked = true;
        return join(dir, 'never.sqlite');
      },
    });
    expect(result).toEqual({ ok: false, error: { status: 501, code: 'backup_not_supported', message: 'This storage takes no backups itself' } });
    expect(asked).toBe(false);
  });

  it('says the service cannot be reached when fetch fails, and passes on a missing connection as is', async () => {
    const unreachable = await saveBackup({
      resolveTarget: target(),
      fetch: async () => {
        throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
      },
      choosePath: async () => join(dir, 'x.sqlite'),
    });
    expect(unreachable).toMatchObject({ ok: false, error: { status: 0, code: 'unreachable', message: expect.stringContaining('ECONNREFUSED') } });
    const stopped = { ok: false as const, error: { status: 503, code: 'service_stopped', message: 'stopped' } };
    expect(await saveBackup({ resolveTarget: () => stopped, fetch: fakeFetch(sqlite).fetchImpl, choosePath: async () => 'x' })).toEqual(stopped);
  });

  it('reports a failed write and leaves no partial file behind', async () => {
    const path = join(dir, 'missing-dir', 'backup.sqlite');
    const result = await saveBackup({ resolveTarget: target(), fetch: fakeFetch(sqlite).fetchImpl, choosePath: async () => path });
    expect(result).toMatchObject({ ok: false, error: { code: 'write_failed' } });
    const broken = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.error(new Error('connection cut'));
      },
    });
    const cut = join(dir, 'cut.sqlite');
    await expect(writeStreamToFile(cut, broken)).rejects.toThrow(/connection cut/);
    expect(readdirSync(dir).filter((name) => name.startsWith('cut.sqlite'))).toEqual([]);
  });
});

describe('saveBackup against a real service', () => {
  let service: RunningService;
  let serviceDir: string;
  beforeAll(async () => {
    serviceDir = mkdtempSync(join(tmpdir(), 'lore-backup-service-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir: serviceDir, adminToken: TOKEN });
  });
  afterAll(async () => {
    await service.stop();
    rmSync(serviceDir, { recursive: true, force: true });
  });

  it('saves an SQLite file of the running database', async () => {
    const path = join(dir, 'real.sqlite');
    const result = await saveBackup({ resolveTarget: target(service.url), fetch, choosePath: async () => path });
    expect(result).toEqual({ ok: true, path });
    expect(readFileSync(path).subarray(0, 15).toString()).toBe('SQLite format 3');
  });
});
