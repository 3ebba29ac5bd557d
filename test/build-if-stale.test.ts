import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIfStale, inputsHash } from '../scripts/build-if-stale.mjs';
import packageJson from '../package.json' with { type: 'json' };

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'lore-build-'));
  roots.push(root);
  mkdirSync(join(root, 'src-renderer'), { recursive: true });
  writeFileSync(join(root, 'src-renderer/index.html'), '<!doctype html>');
  writeFileSync(join(root, 'package-lock.json'), '{}');
  return root;
}

describe('building what the service serves, only when stale', () => {
  it('hashes the inputs: the same sources give the same hash, a changed or added file another', () => {
    const root = checkout();
    const first = inputsHash(root);
    expect(inputsHash(root)).toBe(first);
    writeFileSync(join(root, 'src-renderer/index.html'), '<!doctype html><title>changed</title>');
    const changed = inputsHash(root);
    expect(changed).not.toBe(first);
    writeFileSync(join(root, 'src-renderer/extra.ts'), 'export {};');
    expect(inputsHash(root)).not.toBe(changed);
  });

  it('does nothing when the last build is of the same sources', async () => {
    const root = checkout();
    mkdirSync(join(root, 'out'));
    writeFileSync(join(root, 'out/.build-stamp'), `${inputsHash(root)}\n`);
    // No electron-vite in this checkout: a build would fail, so resolving false shows none ran.
    await expect(buildIfStale({ root, log: () => {} })).resolves.toBe(false);
  });

  it('builds when the sources changed since the last build (here it fails: this checkout has no electron-vite)', async () => {
    const root = checkout();
    mkdirSync(join(root, 'out'));
    writeFileSync(join(root, 'out/.build-stamp'), 'an older build\n');
    await expect(buildIfStale({ root, log: () => {} })).rejects.toThrow();
  });

  it('is the first step of `npm run serve`, so the first start serves the console it prints', () => {
    expect(packageJson.scripts.serve).toMatch(/^node scripts\/build-if-stale\.mjs && /);
  });
});
