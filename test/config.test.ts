import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_PORT, readConfig } from '../src-server/config';

describe('service configuration', () => {
  it('defaults to 127.0.0.1 and the default port', () => {
    const config = readConfig([], {});
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(DEFAULT_PORT);
  });

  it('reads LRS_PORT, LRS_HOST and LRS_DATA_DIR', () => {
    const config = readConfig([], { LRS_PORT: '9000', LRS_HOST: '0.0.0.0', LRS_DATA_DIR: '/var/lib/lore' });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', dataDir: '/var/lib/lore' });
  });

  it('lets flags win over environment variables', () => {
    const config = readConfig(['--port', '0', '--host', '::1', '--data-dir', '/tmp/x'], { LRS_PORT: '9000', LRS_HOST: '0.0.0.0' });
    expect(config).toMatchObject({ port: 0, host: '::1', dataDir: '/tmp/x' });
  });

  it('refuses an unknown flag and a port out of range with a clear message', () => {
    expect(() => readConfig(['--prot', '1'], {})).toThrow(ConfigError);
    expect(() => readConfig(['--port', '70000'], {})).toThrow(/port must be 0 to 65535/);
  });

  it('refuses an admin token too short to be safe', () => {
    expect(() => readConfig([], { LRS_ADMIN_TOKEN: 'short' })).toThrow(/LRS_ADMIN_TOKEN/);
  });
});
