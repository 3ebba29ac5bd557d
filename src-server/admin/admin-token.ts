/**
 * The admin token guards /admin/api. `LRS_ADMIN_TOKEN` sets it; otherwise one is generated on
 * first start and only its hash is kept in the data directory, so a copied data directory does
 * not leak it. The token is printed once, when generated; `--reset-admin-token` replaces it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashSecret, secretMatches } from '../auth/credentials';

const ADMIN_TOKEN_FILE = 'admin-token.sha256';

export interface AdminTokenCheck {
  matches(presented: string): boolean;
}

export interface ResolvedAdminToken {
  check: AdminTokenCheck;
  /** The token in clear, only when it was generated just now and must be shown to the user. */
  generated: string | null;
  source: 'environment' | 'data-dir' | 'database' | 'generated';
  /**
   * Keeps a generated token's hash in the data directory. Called once the service listens and the
   * token is about to be shown: a first start that fails before that (port in use) keeps nothing,
   * so the next start generates and shows a token again instead of guarding with one never seen.
   */
  keep(): void;
}

function checkFor(hash: string): AdminTokenCheck {
  return { matches: (presented) => secretMatches(presented, hash) };
}

function generateAdminToken(): string {
  return `lore_admin_${randomBytes(32).toString('base64url')}`;
}

/** Written whole under a temporary name, then renamed: a crash never leaves half a hash. */
function writeTokenHash(dataDir: string, token: string): void {
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  writeFileSync(`${file}.tmp`, `${hashSecret(token)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function resolveAdminToken(dataDir: string, fromEnvironment: string | undefined): ResolvedAdminToken {
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return { check: checkFor(hashSecret(fromEnvironment)), generated: null, source: 'environment', keep: () => {} };
  }
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  if (existsSync(file)) {
    const hash = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(hash)) return { check: checkFor(hash), generated: null, source: 'data-dir', keep: () => {} };
  }
  const token = generateAdminToken();
  return { check: checkFor(hashSecret(token)), generated: token, source: 'generated', keep: () => writeTokenHash(dataDir, token) };
}

/** Where a deployment on a shared database keeps the admin token's hash (Storage.adminTokenHash). */
export interface SharedTokenHash {
  adminTokenHash(): Promise<string | null>;
  keepAdminTokenHash(hash: string, replace: boolean): Promise<string>;
}

/**
 * The admin token of a deployment whose processes share one database: its hash lives there, so
 * every process checks the same token. The first process to start generates it and shows it; a
 * process that starts at the same moment and loses the race shows nothing and uses the winner's.
 */
export async function resolveSharedAdminToken(shared: SharedTokenHash, fromEnvironment: string | undefined): Promise<ResolvedAdminToken> {
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return { check: checkFor(hashSecret(fromEnvironment)), generated: null, source: 'environment', keep: () => {} };
  }
  const existing = await shared.adminTokenHash();
  if (existing) return { check: checkFor(existing), generated: null, source: 'database', keep: () => {} };
  const token = generateAdminToken();
  const inForce = await shared.keepAdminTokenHash(hashSecret(token), false);
  if (inForce !== hashSecret(token)) return { check: checkFor(inForce), generated: null, source: 'database', keep: () => {} };
  return { check: checkFor(inForce), generated: token, source: 'generated', keep: () => {} };
}

/** A new admin token for a shared database, replacing the one in force (at each process's next start). */
export async function resetSharedAdminToken(shared: SharedTokenHash): Promise<string> {
  const token = generateAdminToken();
  await shared.keepAdminTokenHash(hashSecret(token), true);
  return token;
}

/**
 * A new admin token for a data directory, replacing the one whose hash it keeps (the old token
 * stops working at the next start). The caller holds the data directory's lock: a running service
 * would go on accepting the old token.
 */
export function resetAdminToken(dataDir: string): string {
  const token = generateAdminToken();
  writeTokenHash(dataDir, token);
  return token;
}
