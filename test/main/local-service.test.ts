import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { appPaths } from '../../src-main/app-paths';
import { quitWhenWindowsClosed } from '../../src-main/lifecycle';
import { asarUnpackedPath, resolveSqljsWasmPath, serviceLaunch } from '../../src-main/local-service';
import { SERVICE_NODE_FLAGS } from '../../src-server/service/node-flags';

describe('asarUnpackedPath', () => {
  it.each([
    ['/opt/Lore LRS/resources/app.asar/node_modules/sql.js/dist/sql-wasm.wasm', '/opt/Lore LRS/resources/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm'],
    ['C:\\Program Files\\Lore LRS\\resources\\app.asar\\node_modules\\sql.js\\dist\\sql-wasm.wasm', 'C:\\Program Files\\Lore LRS\\resources\\app.asar.unpacked\\node_modules\\sql.js\\dist\\sql-wasm.wasm'],
    ['/Applications/Lore LRS.app/Contents/Resources/app.asar/node_modules/sql.js/dist/sql-wasm.wasm', '/Applications/Lore LRS.app/Contents/Resources/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm'],
    // Already unpacked, or not packaged at all: unchanged.
    ['/opt/lore/resources/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm', '/opt/lore/resources/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm'],
    ['/home/ada/lore/node_modules/sql.js/dist/sql-wasm.wasm', '/home/ada/lore/node_modules/sql.js/dist/sql-wasm.wasm'],
    ['/home/ada/my-app.asar-notes/sql-wasm.wasm', '/home/ada/my-app.asar-notes/sql-wasm.wasm'],
  ])('%s → %s', (path, unpacked) => {
    expect(asarUnpackedPath(path)).toBe(unpacked);
  });
});

describe('resolveSqljsWasmPath', () => {
  it('finds the wasm electron-builder unpacks (asarUnpack: node_modules/sql.js/dist/*.wasm)', () => {
    const path = resolveSqljsWasmPath((id) => createRequire(import.meta.url).resolve(id));
    expect(path).toMatch(/node_modules[\\/]sql\.js[\\/]dist[\\/]sql-wasm\.wasm$/);
    expect(existsSync(path)).toBe(true);
  });

  it('maps a resolution inside app.asar to app.asar.unpacked', () => {
    expect(resolveSqljsWasmPath((id) => `/r/app.asar/node_modules/${id}`)).toBe('/r/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm');
  });
});

describe('serviceLaunch', () => {
  const launch = serviceLaunch({
    settings: { port: 9100, host: '0.0.0.0' },
    dataDir: '/home/ada/.config/Lore LRS/data',
    adminToken: 'lore_admin_secret',
    wasmPath: '/r/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm',
    env: { PATH: '/usr/bin', LRS_ADMIN_TOKEN: 'from-the-shell', HOME: undefined },
  });

  it('passes port, listen address and data directory as flags', () => {
    expect(launch.args).toEqual(['--port', '9100', '--host', '0.0.0.0', '--data-dir', '/home/ada/.config/Lore LRS/data']);
  });

  it('passes the backup folder the user chose, and none when they chose none (the default beside the data)', () => {
    const chosen = serviceLaunch({ settings: { port: 9100, host: '127.0.0.1', backupDir: '/media/usb/lore-backups' }, dataDir: '/d', adminToken: 't', wasmPath: '/w', env: {} });
    expect(chosen.args.slice(-2)).toEqual(['--backup-dir', '/media/usb/lore-backups']);
    expect(launch.args).not.toContain('--backup-dir');
  });

  it('starts Node with the service flags every launcher uses, as `npm run serve` does', () => {
    expect(launch.execArgv).toEqual(SERVICE_NODE_FLAGS);
    expect(launch.execArgv).toContain('--max-semi-space-size=32');
    const serve = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts['serve'];
    // After the build step (scripts/build-if-stale.mjs), the service itself: compiled, no loader at run time.
    expect(serve).toMatch(new RegExp(` && node ${SERVICE_NODE_FLAGS.join(' ')} out/server/main\\.js$`));
  });

  it('passes the admin token and the wasm path in the environment, never in argv', () => {
    expect(launch.env).toEqual({
      PATH: '/usr/bin',
      LRS_ADMIN_TOKEN: 'lore_admin_secret',
      LORE_SQLJS_WASM: '/r/app.asar.unpacked/node_modules/sql.js/dist/sql-wasm.wasm',
    });
    expect(launch.args.join(' ')).not.toContain('lore_admin_secret');
  });
});

describe('closing the last window', () => {
  it.each([
    [{ keepServiceRunning: false, hasTray: true }, true],
    [{ keepServiceRunning: true, hasTray: true }, false],
    // Without a tray there would be no way back to a hidden app: quit anyway.
    [{ keepServiceRunning: true, hasTray: false }, true],
  ])('%o → quit: %s', (options, quits) => {
    expect(quitWhenWindowsClosed(options)).toBe(quits);
  });
});

describe('appPaths', () => {
  it('finds the built pieces beside out/main and the tray icon in a checkout or beside app.asar', () => {
    expect(appPaths('/repo/out/main', { isPackaged: false, resourcesPath: '/x' })).toEqual({
      preload: '/repo/out/preload/preload.cjs',
      indexHtml: '/repo/out/renderer/index.html',
      service: '/repo/out/main/service-process.js',
      trayIcon: '/repo/resources/icon.png',
    });
    expect(appPaths('/opt/lore/resources/app.asar/out/main', { isPackaged: true, resourcesPath: '/opt/lore/resources' }).trayIcon).toBe(
      '/opt/lore/resources/icon.png',
    );
  });
});
