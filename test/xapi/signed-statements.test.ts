/** Signed statements (xAPI 1.0.3 Part Two §2.6): JWS structure, algorithm, payload, x5c chain. */
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkJws, checkStatementSignatures } from '../../src-server/xapi/signed-statements';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { SIGNATURE_USAGE_TYPE, attachmentFor, sha256, signJws } from '../http/statement-requests';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const fixture = (name: string) => readFileSync(new URL(`../fixtures/signatures/${name}`, import.meta.url), 'utf8');
const signerKey = createPrivateKey(fixture('signer-key.pem'));
const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
const signerCert = der(fixture('signer-cert.pem'));
const caCert = der(fixture('ca-cert.pem'));

const statement = {
  id: 'f8c4f2a6-62f0-4f0a-9a6e-2b4f1c7f2d3e',
  actor: { objectType: 'Agent', mbox: 'mailto:ada@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
  object: { objectType: 'Activity', id: 'http://example.com/course' },
  result: { duration: 'PT1.12S' },
};

function signed(jws: string, overrides: Record<string, unknown> = {}): { statement: Statement; parts: Array<{ sha2: string; contentType: string; content: Buffer }> } {
  return {
    statement: {
      ...statement,
      attachments: [attachmentFor(jws, { usageType: SIGNATURE_USAGE_TYPE, contentType: 'application/octet-stream', ...overrides })],
    } as unknown as Statement,
    parts: [{ sha2: sha256(jws), contentType: 'application/octet-stream', content: Buffer.from(jws) }],
  };
}

describe('checkJws', () => {
  it.each(['RS256', 'RS384', 'RS512'])('accepts a JWS with %s whose payload is the statement', (alg) => {
    expect(checkJws(signJws(statement, privateKey, { alg }), statement)).toEqual({ ok: true });
  });

  it('refuses any other algorithm, HS256 included (§2.6.s4.b4)', () => {
    expect(checkJws(signJws(statement, privateKey, { alg: 'HS256' }), statement)).toMatchObject({
      ok: false,
      message: expect.stringContaining('RS256, RS384 or RS512'),
    });
  });

  it('refuses what is not a compact JWS', () => {
    expect(checkJws('not a jws', statement).ok).toBe(false);
    expect(checkJws('a.b', statement).ok).toBe(false);
  });

  it('refuses a payload that is not valid JSON (§2.6.s4.b3)', () => {
    const broken = JSON.stringify(statement).replace('"', "'");
    expect(checkJws(signJws(broken, privateKey), statement)).toMatchObject({ ok: false, message: expect.stringContaining('JSON') });
  });

  it('refuses a payload that is another statement', () => {
    const other = { ...statement, verb: { id: 'http://adlnet.gov/expapi/verbs/failed' } };
    expect(checkJws(signJws(other, privateKey), statement)).toMatchObject({ ok: false, message: expect.stringContaining('not the statement') });
    expect(checkJws(signJws({ ...statement, id: '00000000-0000-4000-8000-000000000000' }, privateKey), statement).ok).toBe(false);
  });

  it('compares the payload as statements are compared: durations to 0.01 s, properties the LRS sets ignored', () => {
    const payload = { ...statement, result: { duration: 'PT1.1299S' }, stored: '2024-01-01T00:00:00Z' };
    expect(checkJws(signJws(payload, privateKey), statement)).toEqual({ ok: true });
  });

  it('verifies the signature with the x5c certificate, and the chain with each next certificate', () => {
    const jws = signJws(statement, signerKey, { header: { x5c: [signerCert, caCert] } });
    expect(checkJws(jws, statement)).toEqual({ ok: true });
  });

  it('refuses a signature that the x5c certificate does not verify', () => {
    const jws = signJws(statement, privateKey, { header: { x5c: [signerCert] } });
    expect(checkJws(jws, statement)).toMatchObject({ ok: false, message: expect.stringContaining('does not verify') });
  });

  it('refuses an x5c chain whose certificates do not sign each other, or cannot be read', () => {
    expect(checkJws(signJws(statement, signerKey, { header: { x5c: [signerCert, signerCert] } }), statement)).toMatchObject({
      ok: false,
      message: expect.stringContaining('not signed by certificate 2'),
    });
    expect(checkJws(signJws(statement, signerKey, { header: { x5c: ['bm90IGEgY2VydA=='] } }), statement).ok).toBe(false);
  });
});

describe('checkStatementSignatures', () => {
  it('accepts a statement without a signature attachment', () => {
    expect(checkStatementSignatures(statement as unknown as Statement, [])).toBeNull();
  });

  it('accepts a sound signature sent as a part', () => {
    const { statement: s, parts } = signed(signJws(statement, privateKey));
    expect(checkStatementSignatures(s, parts)).toBeNull();
  });

  it('refuses a signature attachment whose contentType is not application/octet-stream (XAPI-00115)', () => {
    const { statement: s, parts } = signed(signJws(statement, privateKey), { contentType: 'text/plain' });
    expect(checkStatementSignatures(s, parts)).toMatchObject({ field: 'attachments[0].contentType' });
  });

  it('refuses a signature that did not come as a part', () => {
    const { statement: s } = signed(signJws(statement, privateKey), { fileUrl: 'https://example.com/sig' });
    expect(checkStatementSignatures(s, [])).toMatchObject({ field: 'attachments[0].sha2' });
  });

  it('names the signature attachment when its JWS is not a signature of the statement', () => {
    const { statement: s, parts } = signed(signJws({ ...statement, object: { id: 'http://example.com/other' } }, privateKey));
    expect(checkStatementSignatures(s, parts)).toMatchObject({ field: 'attachments[0]', message: expect.stringContaining('not a valid signature') });
  });
});
