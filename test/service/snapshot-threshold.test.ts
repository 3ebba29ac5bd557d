import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotThresholdFromEnv } from '../../src-server/service/service';
import { ADMIN_TOKEN, spawnService } from './service-process';

let dataDir: string;
const children: Array<ReturnType<typeof spawnService>> = [];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'lore-snapshot-threshold-'));
});
afterEach(async () => {
  for (const service of children.splice(0)) {
    if (service.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

async function waitFor(condition: () => boolean, what: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('LORE_SNAPSHOT_THRESHOLD_BYTES (the benchmark hook)', () => {
  it('reads a positive whole number of bytes and ignores an unset variable', () => {
    expect(snapshotThresholdFromEnv({ LORE_SNAPSHOT_THRESHOLD_BYTES: '1048576' })).toBe(1048576);
    expect(snapshotThresholdFromEnv({})).toBeUndefined();
    expect(snapshotThresholdFromEnv({ LORE_SNAPSHOT_THRESHOLD_BYTES: '' })).toBeUndefined();
  });

  it('refuses a value that is not a positive whole number, naming the variable', () => {
    for (const raw of ['0', '-5', '1.5', 'lots']) {
      expect(() => snapshotThresholdFromEnv({ LORE_SNAPSHOT_THRESHOLD_BYTES: raw })).toThrow(/LORE_SNAPSHOT_THRESHOLD_BYTES must be a whole number of bytes above 0/);
    }
  });

  it('makes the running service snapshot as soon as its journal passes the threshold', async () => {
    const service = spawnService(dataDir, [], { LORE_SNAPSHOT_THRESHOLD_BYTES: '1' });
    children.push(service);
    await waitFor(() => /listening on http/.test(service.output()), 'the listen line', service.output);
    const url = /listening on (http:\/\/\S+)/.exec(service.output())![1]!;
    expect(service.output()).not.toMatch(/snapshot written/);

    // Creating a Store journals one record: past a 1-byte threshold, a snapshot follows while running.
    const response = await fetch(`${url}/admin/api/stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'snap', name: 'Snap' }),
    });
    expect(response.status).toBe(201);
    await waitFor(() => /snapshot written: \d+ bytes, journal seq [1-9]/.test(service.output()), 'a snapshot', service.output);
  });

  it('does not start with an invalid threshold, and says why', async () => {
    const service = spawnService(dataDir, [], { LORE_SNAPSHOT_THRESHOLD_BYTES: 'lots' });
    children.push(service);
    const exit = await service.exited;
    expect(exit.code).toBe(1);
    expect(service.output()).toMatch(/LORE_SNAPSHOT_THRESHOLD_BYTES must be a whole number of bytes above 0, got "lots"/);
  });
});
