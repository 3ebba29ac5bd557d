import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';
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
      rolldownOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
      },
    },
    plugins: [react(), devCsp()],
  },
});
