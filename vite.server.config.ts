/**
 * The headless service as a production build: `npm run build:server` builds src-server/service/main.ts
 * to out/server/main.js, run with plain Node (`node out/server/main.js --port 8411`), and the service
 * it loads once Node's compile cache is on to one chunk beside it (out/server/assets/). Dependencies
 * stay external (an SSR build's default): they load from node_modules, and sql.js finds its wasm
 * there. The benchmark (`npm run bench`) runs this file. electron-vite's main build carries the
 * same service as out/main/service-process.js for the desktop app; this build needs no Electron
 * toolchain and leaves out/main and out/renderer alone.
 */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

export default defineConfig({
  build: {
    ssr: resolve(root, 'src-server/service/main.ts'),
    outDir: resolve(root, 'out/server'),
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    // Source maps let a CPU profile (`node --cpu-prof --enable-source-maps`) name our files.
    sourcemap: true,
    rolldownOptions: { output: { entryFileNames: 'main.js' } },
  },
});
