/** The web console at /admin/: the built renderer served by the service. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src-server/admin/admin-token';
import { buildServer } from '../../src-server/http/build-server';
import { CONSOLE_CSP, absoluteAssetUrls, acceptedEncodings, findRendererDir, resolveInside } from '../../src-server/http/console-static';
import { openSqljsStorage } from '../../src-server/storage/sqljs/sqljs-storage';
import type { Storage } from '../../src-server/storage/storage';

const INDEX = `<!doctype html><html><head>
<script type="module" crossorigin src="./assets/index-Ab12Cd.js"></script>
<link rel="stylesheet" crossorigin href="./assets/index-Ef34Gh.css">
</head><body><div id="root"></div></body></html>`;

const SCRIPT = `export const lore = ${JSON.stringify('a console you can keep open '.repeat(40))};`;

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
  // The compressed copies the build writes beside an asset (electron.vite.config.ts): the script
  // has both, the stylesheet gzip only, the favicon none.
  const script = path.join(rendererDir, 'assets', 'app-Zz99Yy.js');
  writeFileSync(script, SCRIPT);
  writeFileSync(`${script}.br`, brotliCompressSync(SCRIPT));
  writeFileSync(`${script}.gz`, gzipSync(SCRIPT));
  writeFileSync(path.join(rendererDir, 'assets', 'index-Ef34Gh.css.gz'), gzipSync('body { margin: 0 }'));
  writeFileSync(path.join(root, 'secret.txt.br'), brotliCompressSync('not served'));
  writeFileSync(path.join(root, 'secret.txt.gz'), gzipSync('not served'));
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

  it('sends the brotli copy of an asset to a request that accepts br, gzip to one that accepts gzip only, the file itself otherwise', async () => {
    const app = await serve(rendererDir);
    const get = (acceptEncoding?: string) =>
      app.inject({ method: 'GET', url: '/admin/assets/app-Zz99Yy.js', headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding } });
    for (const accept of ['br, gzip', 'gzip, deflate, br, zstd', 'br']) {
      const br = await get(accept);
      expect(br.statusCode, accept).toBe(200);
      expect(br.headers['content-encoding'], accept).toBe('br');
      expect(brotliDecompressSync(br.rawPayload).toString(), accept).toBe(SCRIPT);
    }
    for (const accept of ['gzip', 'gzip, deflate', 'br;q=0, gzip', 'gzip;q=1, br;q=0.5']) {
      const gz = await get(accept);
      expect(gz.headers['content-encoding'], accept).toBe('gzip');
      expect(gunzipSync(gz.rawPayload).toString(), accept).toBe(SCRIPT);
    }
    for (const accept of [undefined, '', 'identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const plain = await get(accept);
      expect(plain.headers['content-encoding'], accept).toBeUndefined();
      expect(plain.body, accept).toBe(SCRIPT);
    }
    for (const response of [await get('br'), await get('gzip'), await get()]) {
      expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(response.headers['vary']).toBe('accept-encoding');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
    }
  });

  it('sends the file itself when the build wrote no compressed copy of it the request accepts', async () => {
    const app = await serve(rendererDir);
    const css = await app.inject({ method: 'GET', url: '/admin/assets/index-Ef34Gh.css', headers: { 'accept-encoding': 'br' } });
    expect(css.headers['content-encoding']).toBeUndefined();
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe('body { margin: 0 }');
    const gz = await app.inject({ method: 'GET', url: '/admin/assets/index-Ef34Gh.css', headers: { 'accept-encoding': 'br, gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe('body { margin: 0 }');
    const svg = await app.inject({ method: 'GET', url: '/admin/favicon.svg', headers: { 'accept-encoding': 'br, gzip' } });
    expect(svg.headers['content-encoding']).toBeUndefined();
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    // index.html is rewritten per request: always plain.
    const index = await app.inject({ method: 'GET', url: '/admin/index.html', headers: { 'accept-encoding': 'br, gzip' } });
    expect(index.headers['content-encoding']).toBeUndefined();
    expect(index.body).toContain('src="/admin/assets/index-Ab12Cd.js"');
  });

  it('never serves a compressed copy of a file outside the renderer directory, nor of a missing asset', async () => {
    const app = await serve(rendererDir);
    for (const url of ['/admin/../secret.txt', '/admin/%2e%2e/secret.txt', '/admin/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/admin/..%5csecret.txt']) {
      for (const accept of ['br', 'gzip']) {
        const response = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': accept } });
        expect(response.headers['content-encoding'], `${url} ${accept}`).toBeUndefined();
        expect(response.body, `${url} ${accept}`).not.toContain('not served');
      }
    }
    const missing = await app.inject({ method: 'GET', url: '/admin/assets/gone-123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(missing.statusCode).toBe(404);
  });

  it('reads Accept-Encoding by its q-values, preferring brotli on a tie', () => {
    const names = (header: string | undefined) => acceptedEncodings(header).map((encoding) => encoding.name);
    expect(names('gzip, deflate, br, zstd')).toEqual(['br', 'gzip']);
    expect(names('gzip;q=1.0, br;q=0.8')).toEqual(['gzip', 'br']);
    expect(names('BR ; Q=0 , GZIP')).toEqual(['gzip']);
    expect(names('*')).toEqual(['br', 'gzip']);
    expect(names('*;q=0.5, br;q=0')).toEqual(['gzip']);
    expect(names('identity')).toEqual([]);
    expect(names('gzip;q=x')).toEqual([]);
    expect(names(undefined)).toEqual([]);
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
