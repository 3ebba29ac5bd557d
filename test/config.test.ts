import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_PORT, parseBackupInterval, readConfig } from '../src-server/service/config';

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

  it('backs up every 24 h into a backups folder beside the data directory, keeping 7, unless told otherwise', () => {
    expect(readConfig(['--data-dir', '/var/lib/lore/data'], {}).backups).toEqual({ dir: '/var/lib/lore/backups', intervalMs: 86_400_000, keep: 7 });
    const told = readConfig(['--backup-dir', '/mnt/usb/lore', '--backup-interval', '6h', '--backup-keep', '3'], { LRS_BACKUP_INTERVAL: '15m' });
    expect(told.backups).toEqual({ dir: '/mnt/usb/lore', intervalMs: 6 * 3_600_000, keep: 3 });
    expect(readConfig([], { LRS_BACKUP_INTERVAL: 'off' }).backups?.intervalMs).toBeNull();
  });

  it('reads backup intervals in seconds, minutes, hours and days, and refuses anything else by name', () => {
    expect([parseBackupInterval('30s'), parseBackupInterval('15m'), parseBackupInterval('6h'), parseBackupInterval('7d')]).toEqual([30_000, 900_000, 21_600_000, 604_800_000]);
    expect(parseBackupInterval('off')).toBeNull();
    expect(() => readConfig(['--backup-interval', 'daily'], {})).toThrow(/backupInterval.*"daily" is not a duration/);
    expect(() => readConfig(['--backup-keep', '0'], {})).toThrow(/backup-keep must be at least 1/);
  });

  it('keeps the data in the embedded database unless a PostgreSQL URL is given, with its pool and timeout', () => {
    expect(readConfig([], {}).database).toBeUndefined();
    expect(readConfig([], { LRS_DATABASE_URL: 'postgres://lore:secret@db.internal:5432/lore' }).database).toEqual({
      url: 'postgres://lore:secret@db.internal:5432/lore',
      poolSize: 10,
      statementTimeoutMs: 30_000,
    });
    expect(readConfig(['--database-url', 'postgresql://db/lore', '--db-pool-size', '25', '--db-statement-timeout', '5s'], {}).database).toEqual({
      url: 'postgresql://db/lore',
      poolSize: 25,
      statementTimeoutMs: 5_000,
    });
    expect(() => readConfig(['--database-url', 'mysql://db/lore'], {})).toThrow(/database-url must start with postgres:\/\//);
    expect(() => readConfig(['--database-url', 'postgres://db/lore', '--db-pool-size', '0'], {})).toThrow(/db-pool-size must be at least 1/);
    expect(() => readConfig(['--database-url', 'postgres://db/lore', '--db-statement-timeout', 'soon'], {})).toThrow(/dbStatementTimeout.*"soon" is not a duration/);
  });
});
