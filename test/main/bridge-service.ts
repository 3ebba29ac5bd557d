/**
 * A real service with one Store, for the desktop bridges' tests (Test Bench, imports): what the
 * main process forwards to, reached as the active connection is, with the admin token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TargetResolution } from '../../src-main/admin-forwarder';
import { startService, type RunningService } from '../../src-server/service/service';

const TOKEN = 'test-admin-token-0123456789';

/** Starts the service with Store `slug` before the file's tests and stops it after; `target` is the active connection. */
export function useBridgeService(slug: string): { target: () => TargetResolution } {
  let service: RunningService;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lore-bridge-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir: dir, adminToken: TOKEN });
    const created = await fetch(`${service.url}/admin/api/stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug, name: slug, environment: 'test' }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { target: () => ({ ok: true, target: { url: service.url, token: TOKEN } }) };
}
