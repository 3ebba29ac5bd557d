/**
 * The admin token guards /admin/api. `LRS_ADMIN_TOKEN` sets it; otherwise one is generated on
 * first start and only its hash is kept in the data directory, so a copied data directory does
 * not leak it. The token is printed once, when generated; a lost token is replaced by deleting
 * the file and restarting.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashSecret, secretMatches } from './credentials';

export const ADMIN_TOKEN_FILE = 'admin-token.sha256';

export interface AdminTokenCheck {
  matches(presented: string): boolean;
}

export interface ResolvedAdminToken {
  check: AdminTokenCheck;
  /** The token in clear, only when it was generated just now and must be shown to the user. */
  generated: string | null;
  source: 'environment' | 'data-dir' | 'generated';
}

function checkFor(hash: string): AdminTokenCheck {
  return { matches: (presented) => secretMatches(presented, hash) };
}

export function resolveAdminToken(dataDir: string, fromEnvironment: string | undefined): ResolvedAdminToken {
  if (fromEnvironment !== undefined && fromEnvironment !== '') {
    return { check: checkFor(hashSecret(fromEnvironment)), generated: null, source: 'environment' };
  }
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  if (existsSync(file)) {
    const hash = readFileSync(file, 'utf8').trim();
    if (/^[0-9a-f]{64}$/.test(hash)) return { check: checkFor(hash), generated: null, source: 'data-dir' };
  }
  const token = `lore_admin_${randomBytes(32).toString('base64url')}`;
  writeFileSync(file, `${hashSecret(token)}\n`, { mode: 0o600 });
  return { check: checkFor(hashSecret(token)), generated: token, source: 'generated' };
}
