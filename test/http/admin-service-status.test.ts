/** /admin/api/status of a real started service: what the Connection screen shows. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceStatusSchema } from '../../src-server/admin/contract';
import { startService, type RunningService } from '../../src-server/service/service';

const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
let service: RunningService | null = null;
let dataDir = '';

afterEach(async () => {
  await service?.stop();
  service = null;
  rmSync(dataDir, { recursive: true, force: true });
});

describe('service status of a running service', () => {
  it('tells where the service listens, its data directory and its public URL', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lore-status-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN, publicUrl: 'https://lrs.example.org' });
    const response = await fetch(`${service.url}/admin/api/status`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.status).toBe(200);
    const status = serviceStatusSchema.parse(await response.json());
    expect(status).toMatchObject({
      listenUrl: service.url,
      host: '127.0.0.1',
      port: service.port,
      dataDir,
      publicUrl: 'https://lrs.example.org',
    });
  });

  it('answers admin requests for the public URL host and refuses other hosts', async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'lore-status-'));
    service = await startService({ port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN_TOKEN, publicUrl: 'https://lrs.example.org' });
    const { port } = service;
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        // node:http: fetch does not let a caller set Host.
        void import('node:http').then((http) =>
          http
            .get({ host: '127.0.0.1', port, path: '/admin/api/status', headers: { host, authorization: `Bearer ${ADMIN_TOKEN}` }, agent: false }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            })
            .on('error', reject),
        );
      });
    expect(await status('lrs.example.org')).toBe(200);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status('rebound.example')).toBe(403);
  });
});
