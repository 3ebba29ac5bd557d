/**
 * The start banner of a service listening beyond loopback: the addresses other machines reach it
 * at, with the port, and how to name it behind a proxy; nothing of the kind on loopback.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { NetworkInterfaceInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reachableLines } from '../../src-server/service/reachable-at';
import { startService, type ServiceProcess } from './service-process';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(env: Record<string, string>): Promise<ServiceProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-reachable-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const service = await startService(dir, env);
  cleanups.push(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
  });
  return service;
}

const ADVICE = /behind a proxy: set --public-url/;

describe('the start banner', () => {
  it('lists where a service on 0.0.0.0 is reached, with its port, and advises --public-url behind a proxy', async () => {
    const service = await started({ LRS_HOST: '0.0.0.0' });
    const port = new URL(service.url).port;
    const output = service.output();
    expect(output).toContain('reachable at:');
    expect(output).toContain(`http://127.0.0.1:${port} (this machine)`);
    expect(output).toMatch(ADVICE);
    // What it lists answers: the loopback address at least, on every machine that runs the tests.
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  });

  it('adds nothing for a loopback service, and no advice once --public-url is set', async () => {
    const loopback = await started({});
    expect(loopback.output()).not.toContain('reachable at');
    expect(loopback.output()).not.toMatch(ADVICE);
    const named = await started({ LRS_HOST: '0.0.0.0', LRS_PUBLIC_URL: 'https://lrs.example.org' });
    expect(named.output()).toContain('reachable at');
    expect(named.output()).not.toMatch(ADVICE);
  });
});

describe('reachableLines', () => {
  const info = (address: string, family: 'IPv4' | 'IPv6', internal: boolean) => ({ address, family, internal }) as NetworkInterfaceInfo;
  const interfaces = {
    lo: [info('127.0.0.1', 'IPv4', true), info('::1', 'IPv6', true)],
    eth0: [info('192.168.1.20', 'IPv4', false), info('fe80::1', 'IPv6', false)],
    wlan0: [info('10.1.2.3', 'IPv4', false)],
  };

  it("lists a wildcard binding's IPv4 addresses, other machines' first, each with the port", () => {
    expect(reachableLines({ host: '0.0.0.0', port: 8411, interfaces })).toEqual([
      '  reachable at:   http://192.168.1.20:8411 (eth0)',
      '                  http://10.1.2.3:8411 (wlan0)',
      '                  http://127.0.0.1:8411 (this machine)',
      expect.stringMatching(ADVICE),
    ]);
    expect(reachableLines({ host: '::', port: 8411, interfaces })).toHaveLength(4);
  });

  it('leaves a named address to the "listening on" line, and says nothing on loopback', () => {
    expect(reachableLines({ host: '192.168.1.20', port: 8411, interfaces })).toEqual([expect.stringMatching(ADVICE)]);
    expect(reachableLines({ host: '192.168.1.20', port: 8411, interfaces, publicUrl: 'https://lrs.example.org' })).toEqual([]);
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(reachableLines({ host, port: 8411, interfaces })).toEqual([]);
  });
});
