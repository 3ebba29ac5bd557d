import { describe, expect, it } from 'vitest';
import { basicCredential, bearerToken, generateKeyId, hashSecret, readAuthorization, secretMatches } from '../../src-server/auth/credentials';

describe('API key credentials', () => {
  it('shows the environment in the key id', () => {
    expect(generateKeyId('test')).toMatch(/^lore_test_[a-z2-9]{16}$/);
    expect(generateKeyId('live')).toMatch(/^lore_live_[a-z2-9]{16}$/);
  });

  it('matches a secret against its hash and nothing else', () => {
    const hash = hashSecret('s3cret');
    expect(hash).not.toContain('s3cret');
    expect(secretMatches('s3cret', hash)).toBe(true);
    expect(secretMatches('s3cret ', hash)).toBe(false);
    expect(secretMatches('', hash)).toBe(false);
  });

  it('reads Basic id:secret and Bearer id.secret to the same credentials', () => {
    const basic = readAuthorization(`Basic ${basicCredential('lore_test_abc', 'xyz:with-colon')}`);
    expect(basic).toEqual({ kind: 'key', keyId: 'lore_test_abc', secret: 'xyz:with-colon' });
    const bearer = readAuthorization(`Bearer ${bearerToken('lore_test_abc', 'xyz')}`);
    expect(bearer).toEqual({ kind: 'key', keyId: 'lore_test_abc', secret: 'xyz' });
    expect(readAuthorization('bearer lore_test_abc.xyz')).toEqual({ kind: 'key', keyId: 'lore_test_abc', secret: 'xyz' });
  });

  it('tells missing from malformed credentials', () => {
    expect(readAuthorization(undefined)).toEqual({ kind: 'missing' });
    expect(readAuthorization('Token abc').kind).toBe('malformed');
    expect(readAuthorization('Basic').kind).toBe('malformed');
    expect(readAuthorization('Bearer .abc').kind).toBe('malformed');
  });
});
