import { describe, expect, it } from 'vitest';
import { prepareStatement } from '../../src-server/xapi/prepare-statement';
import type { PrepareContext } from '../../src-server/xapi/prepare-statement';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { validateStatement } from '../../src-server/xapi/validate-statements';
import type { XapiVersion } from '../../src-server/xapi/version';
import { validStatement } from './fixtures';

const STORED = '2024-06-02T08:00:00.000Z';
const KEY_AUTHORITY = { objectType: 'Agent' as const, name: 'Course key', account: { homePage: 'https://lrs.example.com', name: 'lore_test_abc' } };

function validated(name: string, version: XapiVersion = '1.0.3'): Statement {
  const result = validateStatement(validStatement(name), version);
  if (!result.ok) throw new Error(result.issue.message);
  return result.statement;
}

function ctx(version: XapiVersion = '1.0.3'): PrepareContext {
  return { authority: KEY_AUTHORITY, version, stored: STORED, newId: () => 'AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE' };
}

describe('prepareStatement', () => {
  it('gives a statement without id a new, lower-case one', () => {
    expect(prepareStatement(validated('minimal'), ctx()).id).toBe('aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee');
  });

  it('keeps the id the client sent, lower-cased', () => {
    const statement = { ...validated('minimal'), id: '6F1C2A4E-3B5D-4C7E-9F80-1A2B3C4D5E6F' };
    expect(prepareStatement(statement, ctx()).id).toBe('6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f');
  });

  it('sets stored, replacing a stored value the client sent', () => {
    const full = validated('full-statement');
    expect(full.stored).not.toBe(STORED);
    expect(prepareStatement(full, ctx()).stored).toBe(STORED);
  });

  it("replaces the client's authority with the credentials' authority", () => {
    const full = validated('full-statement');
    expect(full.authority).toBeDefined();
    expect(prepareStatement(full, ctx()).authority).toEqual(KEY_AUTHORITY);
    expect(prepareStatement(validated('minimal'), ctx()).authority).toEqual(KEY_AUTHORITY);
  });

  it('sets timestamp to stored when absent and keeps a sent timestamp exactly as sent', () => {
    expect(prepareStatement(validated('minimal'), ctx()).timestamp).toBe(STORED);
    expect(prepareStatement(validated('full-statement'), ctx()).timestamp).toBe('2024-05-01T09:30:00.123+02:00');
  });

  it('sets version 1.0.0 under 1.0.3 and 2.0.0 under 2.0.0 when absent, and keeps a sent one', () => {
    expect(prepareStatement(validated('minimal'), ctx('1.0.3')).version).toBe('1.0.0');
    expect(prepareStatement(validated('minimal', '2.0.0'), ctx('2.0.0')).version).toBe('2.0.0');
    expect(prepareStatement(validated('version-1.0', '2.0.0'), ctx('2.0.0')).version).toBe('1.0');
  });

  it('keeps everything else as received, in the usual property order', () => {
    const full = validated('full-statement');
    const prepared = prepareStatement(full, ctx());
    expect(Object.keys(prepared)).toEqual(['id', 'actor', 'verb', 'object', 'result', 'context', 'timestamp', 'stored', 'authority', 'version', 'attachments']);
    expect({ ...prepared, stored: full.stored, authority: full.authority }).toEqual(full);
  });

  it('leaves the statement it is given unchanged', () => {
    const minimal = validated('minimal');
    const before = structuredClone(minimal);
    prepareStatement(minimal, ctx());
    expect(minimal).toEqual(before);
  });

  it('produces a statement that validates again under the same version', () => {
    for (const version of ['1.0.3', '2.0.0'] as const) {
      const prepared = prepareStatement(validated('full-statement', version), ctx(version));
      expect(validateStatement(prepared, version).ok).toBe(true);
    }
  });
});
