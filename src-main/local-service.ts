/**
 * How the desktop app starts its local LRS service: the arguments and environment of the
 * utility process, and where sql.js's wasm is. Pure functions; index.ts forks with them.
 */
import { SERVICE_NODE_FLAGS } from '../src-server/service/node-flags';
import type { LocalSettings } from './desktop-contract';

/**
 * A path inside a packaged app's `app.asar` turned into the same path under `app.asar.unpacked`,
 * where electron-builder puts the files of `asarUnpack` (electron-builder.yml unpacks
 * node_modules/sql.js/dist/*.wasm). The service reads the wasm with plain fs and hands the bytes
 * to WebAssembly; unpacked, it is an ordinary file whatever reads it. A path outside any asar
 * (development, the built app run with `electron .`) is returned unchanged.
 */
export function asarUnpackedPath(path: string): string {
  return path.replace(/([\\/])app\.asar(?=[\\/])/, '$1app.asar.unpacked');
}

/** The wasm the service must load, from a module resolver (main's `require.resolve`). */
export function resolveSqljsWasmPath(resolveModule: (id: string) => string): string {
  return asarUnpackedPath(resolveModule('sql.js/dist/sql-wasm.wasm'));
}

export interface ServiceLaunchInput {
  settings: LocalSettings;
  dataDir: string;
  adminToken: string;
  wasmPath: string;
  /** The app's environment, inherited by the service except for what is set here. */
  env: Record<string, string | undefined>;
}

/**
 * Flags carry port, address, data directory and backup folder (flags win over the LRS_* variables a user may
 * have in their shell). The admin token goes in the environment, never in argv: argv is visible
 * to every user of the machine in `ps`. execArgv: the Node flags every launcher of the service
 * uses (src-server/service/node-flags.ts).
 */
export function serviceLaunch({ settings, dataDir, adminToken, wasmPath, env }: ServiceLaunchInput): {
  args: string[];
  execArgv: string[];
  env: Record<string, string>;
} {
  const inherited = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    args: ['--port', String(settings.port), '--host', settings.host, '--data-dir', dataDir, ...(settings.backupDir ? ['--backup-dir', settings.backupDir] : [])],
    execArgv: [...SERVICE_NODE_FLAGS],
    env: { ...inherited, LRS_ADMIN_TOKEN: adminToken, LORE_SQLJS_WASM: wasmPath },
  };
}
