import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import type { Plugin } from 'vite';
import { DEV_RENDERER_CSP, RENDERER_CSP } from './src-main/security';

const root = import.meta.dirname;

/**
 * index.html carries the production CSP. The dev server needs two relaxations (React refresh's
 * inline preamble, the HMR WebSocket); this plugin swaps the policy only under `electron-vite dev`.
 */
function devCsp(): Plugin {
  return {
    name: 'lore:dev-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      if (!html.includes(RENDERER_CSP)) throw new Error('src-renderer/index.html must carry RENDERER_CSP');
      return html.replace(RENDERER_CSP, DEV_RENDERER_CSP);
    },
  };
}

/** What is worth compressing: text. Images and fonts (woff2) are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|svg|json|map|txt|wasm)$/;

/**
 * The web console is served compressed: next to each built asset this writes `<name>.br` (brotli,
 * at its best quality) and `<name>.gz` (gzip -9), which the service's console route
 * (src-server/http/console-static.ts) sends by the request's Accept-Encoding. Compressed once
 * here, at build time, rather than on each request: the service spends no CPU on it, and brotli's
 * best quality (too slow to run per request) is affordable. A variant that would not be smaller
 * is not written, and the service then sends the plain file. index.html is left alone: the
 * service rewrites its asset URLs per request.
 */
function precompress(): Plugin {
  const compressors = [
    {
      suffix: '.br',
      compress: (data: Buffer) =>
        promisify(brotliCompress)(data, {
          params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: data.length, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT },
        }),
    },
    { suffix: '.gz', compress: (data: Buffer) => promisify(gzip)(data, { level: zlib.Z_BEST_COMPRESSION }) },
  ];
  return {
    name: 'lore:precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const dir = options.dir;
      if (!dir) return;
      const files = Object.values(bundle).filter((file) => COMPRESSIBLE.test(file.fileName));
      await Promise.all(
        files.flatMap((file) => {
          const data = Buffer.from(file.type === 'chunk' ? file.code : file.source);
          return compressors.map(async ({ suffix, compress }) => {
            const compressed = await compress(data);
            if (compressed.length < data.length) await writeFile(join(dir, `${file.fileName}${suffix}`), compressed);
          });
        }),
      );
    },
  };
}

// Dependencies stay external in main and preload (electron-vite's default `externalizeDeps`):
// electron-builder ships node_modules, and sql.js loads its wasm from disk (see asarUnpack).
export default defineConfig({
  main: {
    build: {
      rolldownOptions: {
        input: {
          index: resolve(root, 'src-main/index.ts'),
          // The headless LRS service, started by main as a utility process (or by plain Node).
          'service-process': resolve(root, 'src-server/service/service-process.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      rolldownOptions: {
        input: { preload: resolve(root, 'src-main/preload.ts') },
        // A sandboxed preload cannot be an ES module; .cjs keeps Node from reading it as ESM
        // under package.json's "type": "module".
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    build: {
      // electron-vite leaves the renderer unminified by default (a desktop app reads it from disk);
      // the same build is the web console every browser downloads, so it is minified (JS and CSS).
      minify: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
        output: {
          // Each screen is a chunk of its own (React.lazy in the shell). The third-party code the
          // first screen needs (React, Mantine) is one more, whose name and cache outlive releases
          // that change only the console's own code; libraries only some screens use (tables)
          // stay with those screens.
          codeSplitting: { groups: [{ name: 'vendor', test: /[\\/]node_modules[\\/]/, tags: ['$initial'] }] },
        },
      },
    },
    plugins: [react(), devCsp(), precompress()],
  },
});
