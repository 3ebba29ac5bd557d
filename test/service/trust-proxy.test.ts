/**
 * Behind a reverse proxy (--trust-proxy): the client address the refusal log keeps (and the
 * failed-login back-off counts by) is the one the trusted proxy forwards; a forwarded address
 * from anyone else is ignored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../../src-server/service/config';
import { startService } from '../../src-server/service/service';
import type { RunningService } from '../../src-server/service/service';

const ADMIN_TOKEN = 'trust-proxy-admin-token-0123456789';
const running: Array<{ service: RunningService; dir: string }> = [];

afterEach(async () => {
  for (const { service, dir } of running.splice(0)) {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

async function serviceTrusting(trustProxy: string[] | undefined): Promise<RunningService> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-proxy-'));
  const service = await startService({ port: 0, host: '127.0.0.1', dataDir: dir, adminToken: ADMIN_TOKEN, ...(trustProxy ? { trustProxy } : {}) });
  running.push({ service, dir });
  return service;
}

async function clientOfRefusal(service: RunningService): Promise<string> {
  const refused = await fetch(`${service.url}/nowhere/xAPI/statements`, { headers: { 'x-forwarded-for': '203.0.113.9', 'x-experience-api-version': '1.0.3' } });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  const log = await fetch(`${service.url}/admin/api/refusals?limit=5`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const { refusals } = (await log.json()) as { refusals: Array<{ client: string; path: string }> };
  return refusals.find((r) => r.path.startsWith('/nowhere'))!.client;
}

describe('behind a reverse proxy', () => {
  it('keeps the forwarded client address only from a trusted proxy', async () => {
    expect(await clientOfRefusal(await serviceTrusting(['127.0.0.1']))).toBe('203.0.113.9');
    expect(await clientOfRefusal(await serviceTrusting(undefined))).toBe('127.0.0.1');
  });

  it('reads the proxies from --trust-proxy or LRS_TRUST_PROXY, and refuses anything but addresses and CIDRs', () => {
    expect(readConfig(['--trust-proxy', '127.0.0.1, 10.0.0.0/8'], {}).trustProxy).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(readConfig([], { LRS_TRUST_PROXY: '::1' }).trustProxy).toEqual(['::1']);
    expect(readConfig([], {}).trustProxy).toBeUndefined();
    expect(() => readConfig(['--trust-proxy', 'my-proxy.local'], {})).toThrow(/trust-proxy takes IP addresses or CIDRs/);
  });
});
