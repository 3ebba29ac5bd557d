/**
 * Where the desktop settings live (a JSON file in userData) and how secrets are encrypted in it
 * (Electron's safeStorage: the OS keychain, DPAPI, or the Linux secret service). Both take their
 * dependencies as arguments, so tests use a temporary directory and a fake safeStorage.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SafeStorage } from 'electron';
import type { JsonStore, SecretBox } from './connection-profiles';

/** The settings file; written whole to a temporary file and renamed, so a crash never halves it. */
export function jsonFileStore(path: string): JsonStore {
  return {
    read() {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      return JSON.parse(text) as unknown;
    },
    write(value) {
      mkdirSync(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      // Owner-only: the tokens in it are encrypted, but nobody else needs to read even that.
      writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
      renameSync(temporary, path);
    },
  };
}

/**
 * safeStorage as a SecretBox. On Linux without a secret service, Electron falls back to a
 * hard-coded key ('basic_text'): that is obfuscation, not encryption, so it counts as unavailable.
 */
export function safeStorageSecretBox(
  safeStorage: Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> & {
    getSelectedStorageBackend?: () => string;
  },
  platform: NodeJS.Platform = process.platform,
): SecretBox {
  return {
    isAvailable() {
      if (!safeStorage.isEncryptionAvailable()) return false;
      if (platform === 'linux' && safeStorage.getSelectedStorageBackend?.() === 'basic_text') return false;
      return true;
    },
    encrypt: (plain) => safeStorage.encryptString(plain).toString('base64'),
    decrypt: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
}
