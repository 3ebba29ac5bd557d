/**
 * API key and admin token material: generation, hashing, constant-time checks, and reading the
 * Authorization header. Secrets are 256-bit random values, so a plain SHA-256 at rest is enough
 * (a slow password hash protects guessable secrets; these are not guessable) and keeps every
 * request's check to microseconds.
 */
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../storage/storage';

const KEY_ID_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** `lore_test_x7k2…` / `lore_live_…`: the environment reads at a glance (docs/design.md, "API keys"). */
export function generateKeyId(environment: Environment): string {
  const bytes = randomBytes(16);
  let suffix = '';
  for (const byte of bytes) suffix += KEY_ID_ALPHABET[byte % KEY_ID_ALPHABET.length];
  return `lore_${environment}_${suffix}`;
}

export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Compares a presented secret with a stored hash without leaking where they differ. Every xAPI
 * request pays it: the one-shot digest as bytes costs a third of a Hash object's hex digest read
 * back from hex.
 */
export function secretMatches(presented: string, storedHash: string): boolean {
  const presentedHash = hash('sha256', presented, 'buffer');
  const expected = Buffer.from(storedHash, 'hex');
  return presentedHash.length === expected.length && timingSafeEqual(presentedHash, expected);
}

/** The Bearer form of a key: its id and secret joined by a dot (neither contains one). */
export function bearerToken(keyId: string, secret: string): string {
  return `${keyId}.${secret}`;
}

export function basicCredential(keyId: string, secret: string): string {
  return Buffer.from(`${keyId}:${secret}`, 'utf8').toString('base64');
}

export type PresentedCredentials =
  | { kind: 'key'; keyId: string; secret: string }
  | { kind: 'missing' }
  | { kind: 'malformed'; reason: string };

/** Reads `Authorization: Basic base64(id:secret)` or `Authorization: Bearer id.secret`. */
export function readAuthorization(header: string | undefined): PresentedCredentials {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^(\S+)\s+(\S+)\s*$/.exec(header.trim());
  if (!match) return { kind: 'malformed', reason: 'expected "Basic <credentials>" or "Bearer <token>"' };
  const scheme = match[1]!.toLowerCase();
  const value = match[2]!;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return { kind: 'malformed', reason: 'Basic credentials must be base64 of "<key id>:<secret>"' };
    return { kind: 'key', keyId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  }
  if (scheme === 'bearer') {
    const dot = value.indexOf('.');
    if (dot <= 0) return { kind: 'malformed', reason: 'a Bearer token has the form "<key id>.<secret>"' };
    return { kind: 'key', keyId: value.slice(0, dot), secret: value.slice(dot + 1) };
  }
  return { kind: 'malformed', reason: `unsupported scheme "${match[1]}"; use Basic or Bearer` };
}
