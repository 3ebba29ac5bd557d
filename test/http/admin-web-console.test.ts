/** The web console at /admin/: the built renderer served by the service. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import { buildServer } from '../../src-server/http/build-server';
import { CONSOLE_CSP, absoluteAssetUrls, findRendererDir, resolveInside } from '../../src-server/http/console-static';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { Storage } from '../../src-server/storage/storage';

const INDEX = `<!doctype html><html><head>
<script type="module" crossorigin src="./assets/index-Ab12Cd.js"></script>
<link rel="stylesheet" crossorigin href="./assets/index-Ef34Gh.css">
</head><body><div id="root"></div></body></html>`;

let root: string;
let rendererDir: string;
const open: Array<{ app: FastifyInstance; storage: Storage }> = [];

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'lore-console-'));
  rendererDir = path.join(root, 'renderer');
  mkdirSync(path.join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(path.join(rendererDir, 'index.html'), INDEX);
  writeFileSync(path.join(rendererDir, 'assets', 'index-Ab12Cd.js'), 'console.log("lore");');
  writeFileSync(path.join(rendererDir, 'assets', 'index-Ef34Gh.css'), 'body { margin: 0 }');
  writeFileSync(path.join(rendererDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(root, 'secret.txt'), 'not served');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  for (const { app, storage } of open.splice(0)) {
    await app.close();
    await storage.close();
  }
});

async function serve(dir: string): Promise<FastifyInstance> {
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const storage = await openSqljsStorage({ dataDir });
  const app = buildServer({
    storage,
    adminToken: resolveAdminToken(dataDir, 'test-admin-token-0123456789abcdef').check,
    publicUrl: () => 'http://127.0.0.1:8411',
    rendererDir: dir,
  });
  open.push({ app, storage });
  return app;
}

describe('the web console', () => {
  it('serves index.html at /admin/ with absolute asset URLs, no caching and a strict CSP', async () => {
    const app = await serve(rendererDir);
    const response = await app.inject({ method: 'GET', url: '/admin/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toMatch(/script-src 'self';/);
    expect(CONSOLE_CSP).toMatch(/frame-ancestors 'none'/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).toContain('src="/admin/assets/index-Ab12Cd.js"');
    expect(response.body).toContain('href="/admin/assets/index-Ef34Gh.css"');
  });

  it('redirects /admin to /admin/ so relative links resolve', async () => {
    const app = await serve(rendererDir);
    const response = await app.inject({ method: 'GET', url: '/admin' });
    expect(response.statusCode).toBe(308);
    expect(response.headers.location).toBe('/admin/');
  });

  it('answers index.html for client routes, not for admin API paths', async () => {
    const app = await serve(rendererDir);
    for (const url of ['/admin/stores', '/admin/stores/demo/keys', '/admin/explorer?store=demo']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).toContain('<div id="root">');
    }
    const api = await app.inject({ method: 'GET', url: '/admin/api/nothing-here' });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toMatch(/application\/json/);
  });

  it('serves hashed assets with their content type and a year of immutable caching', async () => {
    const app = await serve(rendererDir);
    const js = await app.inject({ method: 'GET', url: '/admin/assets/index-Ab12Cd.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body).toBe('console.log("lore");');
    const css = await app.inject({ method: 'GET', url: '/admin/assets/index-Ef34Gh.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const svg = await app.inject({ method: 'GET', url: '/admin/favicon.svg' });
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 for a missing asset instead of the page', async () => {
    const app = await serve(rendererDir);
    expect((await app.inject({ method: 'GET', url: '/admin/assets/gone-123.js' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/admin/robots.txt' })).statusCode).toBe(404);
  });

  it('never serves a file outside the renderer directory', async () => {
    const app = await serve(rendererDir);
    for (const url of ['/admin/../secret.txt', '/admin/%2e%2e/secret.txt', '/admin/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/admin/..%5csecret.txt']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.body, url).not.toContain('not served');
    }
    expect(resolveInside(rendererDir, '../secret.txt')).toBe(path.join(rendererDir, 'secret.txt'));
    expect(resolveInside(rendererDir, 'a/../../../secret.txt')).toBe(path.join(rendererDir, 'secret.txt'));
    expect(resolveInside(rendererDir, 'x\0y')).toBeNull();
  });

  it('says to run npm run build when the renderer is not built', async () => {
    const app = await serve(path.join(root, 'nowhere'));
    const response = await app.inject({ method: 'GET', url: '/admin/' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('npm run build');
    expect((await app.inject({ method: 'GET', url: '/admin/stores' })).body).toContain('npm run build');
  });

  it('finds the built renderer next to the bundled service and from the sources', () => {
    const bundled = path.join(root, 'out');
    mkdirSync(path.join(bundled, 'main'), { recursive: true });
    mkdirSync(path.join(bundled, 'renderer'), { recursive: true });
    writeFileSync(path.join(bundled, 'renderer', 'index.html'), INDEX);
    expect(findRendererDir(`file://${path.join(bundled, 'main', 'service-process.js')}`)).toBe(path.join(bundled, 'renderer'));
    const repo = path.join(root, 'repo');
    mkdirSync(path.join(repo, 'src-server', 'http'), { recursive: true });
    mkdirSync(path.join(repo, 'out', 'renderer'), { recursive: true });
    writeFileSync(path.join(repo, 'out', 'renderer', 'index.html'), INDEX);
    expect(findRendererDir(`file://${path.join(repo, 'src-server', 'http', 'console-static.ts')}`)).toBe(path.join(repo, 'out', 'renderer'));
    expect(findRendererDir(`file://${path.join(root, 'elsewhere', 'a', 'b', 'c', 'y.js')}`)).toBeNull();
  });

  it('rewrites only relative src and href attributes', () => {
    expect(absoluteAssetUrls('<a href="./assets/a.js"></a><a href="https://x/./y"></a><img src="/admin/x.png">')).toBe(
      '<a href="/admin/assets/a.js"></a><a href="https://x/./y"></a><img src="/admin/x.png">',
    );
  });
});
