/**
 * Starting the real headless service as a newcomer does, and as containers do: the data-directory
 * lock, the admin token on a first start that fails, the reset command, and --help.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LIMIT_SETTINGS } from '../../src-server/limits/service-limits';
import { SERVICE_SETTINGS } from '../../src-server/service/config';
import { spawnService, startService, type ServiceProcess } from './service-process';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lore-first-start-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(dir: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const service = await startService(dir, env);
  cleanups.push(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
  });
  return service;
}

/** Runs the service's command line to its end: its exit code and everything it printed. */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const { exited, output } = spawnService(args.includes('--data-dir') ? '' : dataDir(), args, env);
  const { code } = await exited;
  return { code, output: output() };
}

describe('the data-directory lock', () => {
  it('refuses a second live service on one directory with a message naming the first', async () => {
    const dir = dataDir();
    const first = await started(dir);
    const second = spawnService(dir);
    const { code } = await second.exited;
    expect(code).toBe(1);
    expect(second.output()).toContain(`data directory ${dir} is in use by process ${first.child.pid}`);
    // The first one is unaffected.
    expect((await first.admin('/status')).status).toBe(200);
  });

  it('takes over a lock whose pid now belongs to another program, as a restarted container sees', async () => {
    const dir = dataDir();
    // PID 1 always runs, and is no Lore service (in a container it would be the new service itself).
    writeFileSync(join(dir, 'lore.lock'), '1\n');
    const service = await started(dir);
    expect(service.output()).toContain('which is no longer a running Lore service (that pid now belongs to another program)');
    expect(readFileSync(join(dir, 'lore.lock'), 'utf8').trim()).toBe(String(service.child.pid));
  });

  it('takes over the lock of a service killed with SIGKILL', async () => {
    const dir = dataDir();
    const first = await startService(dir);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await started(dir);
    expect(second.output()).toContain(`taking over the lock of ${dir} from process ${first.child.pid}`);
  });
});

describe('the admin token', () => {
  it('still gives a working token on the start after a first start that failed before listening', async () => {
    const dir = dataDir();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const port = String((blocker.address() as { port: number }).port);
    // Port in use: the first start fails before it listens.
    const failed = spawnService(dir, ['--port', port], { LRS_ADMIN_TOKEN: '' });
    expect((await failed.exited).code).toBe(1);
    expect(failed.output()).toMatch(/could not start.*EADDRINUSE/s);
    // The next start generates a token, shows it, and the token works.
    const service = await started(dir, { LRS_ADMIN_TOKEN: '' });
    const token = /admin token \(shown once[^)]*\): (\S+)/.exec(service.output())?.[1];
    expect(token).toBeDefined();
    const status = await fetch(`${service.url}/admin/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
  });

  it('is replaced by --reset-admin-token: the new one works, the old one no longer does', async () => {
    const dir = dataDir();
    const first = await startService(dir, { LRS_ADMIN_TOKEN: '' });
    const oldToken = /admin token \(shown once[^)]*\): (\S+)/.exec(first.output())![1]!;
    // While the service runs, the reset refuses: the service would go on accepting the old token.
    const refused = await run(['--data-dir', dir, '--reset-admin-token'], { LRS_ADMIN_TOKEN: '' });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain(`The admin token was not reset: data directory ${dir} is in use by process ${first.child.pid}`);
    first.child.kill('SIGTERM');
    await first.exited;

    const reset = await run(['--data-dir', dir, '--reset-admin-token'], { LRS_ADMIN_TOKEN: '' });
    expect(reset.code).toBe(0);
    const newToken = /^(lore_admin_\S+)$/m.exec(reset.output)?.[1];
    expect(newToken).toBeDefined();
    expect(newToken).not.toBe(oldToken);

    const service = await started(dir, { LRS_ADMIN_TOKEN: '' });
    const ask = (token: string) => fetch(`${service.url}/admin/api/status`, { headers: { authorization: `Bearer ${token}` } });
    expect((await ask(newToken!)).status).toBe(200);
    expect((await ask(oldToken)).status).toBe(401);
    expect(service.output()).not.toContain('admin token (shown once');
  });
});

describe('--help', () => {
  it('lists every flag with its variable and default, and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const { code, output } = await run([flag]);
      expect(code).toBe(0);
      for (const setting of SERVICE_SETTINGS) {
        expect(output).toContain(setting.env);
        if (setting.flag) expect(output).toMatch(new RegExp(`--${setting.flag}\\s+${setting.env}\\s+\\S`));
      }
      for (const setting of LIMIT_SETTINGS) expect(output).toMatch(new RegExp(`--${setting.flag}\\s+${setting.env}\\s+\\d`));
      expect(output).toContain('--reset-admin-token');
      expect(output).not.toContain('listening on');
    }
  });

  it('answers an unknown flag with exit code 2 and a pointer to --help', async () => {
    const { code, output } = await run(['--prot', '1']);
    expect(code).toBe(2);
    expect(output).toContain("Unknown option '--prot'");
    expect(output).toContain('--help');
  });
});
