/**
 * Every fixture under test/fixtures/statements: valid ones are accepted under the versions they
 * list (and only those, when they list one), invalid ones are rejected naming their field.
 */
import { describe, expect, it } from 'vitest';
import { validateStatement } from '../../src-server/xapi/validate-statements';
import type { XapiVersion } from '../../src-server/xapi/version';
import { expectedField, invalidFixtures, validFixtures } from './fixtures';

const VERSIONS: XapiVersion[] = ['1.0.3', '2.0.0'];

describe('valid statement fixtures', () => {
  it('has fixtures to check', () => {
    expect(validFixtures.length).toBeGreaterThan(10);
  });

  for (const fixture of validFixtures) {
    for (const version of fixture.versions) {
      it(`accepts ${fixture.name} under ${version}: ${fixture.description}`, () => {
        const result = validateStatement(fixture.statement, version);
        expect(result.ok ? 'accepted' : result.issue).toBe('accepted');
      });
    }
  }
});

describe('invalid statement fixtures', () => {
  it('has fixtures to check', () => {
    expect(invalidFixtures.length).toBeGreaterThan(40);
  });

  for (const fixture of invalidFixtures) {
    for (const version of fixture.versions) {
      const field = expectedField(fixture, version) ?? '(missing)';
      it(`rejects ${fixture.name} under ${version} and names ${field}: ${fixture.description}`, () => {
        const result = validateStatement(fixture.statement, version);
        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.issue.field).toBe(field);
        // The message names the field, or quotes the key at fault (extra property, bad map key).
        const lastKey = field.split('.').pop() ?? field;
        expect(result.issue.message.startsWith(field) || result.issue.message.includes(`"${lastKey}"`)).toBe(true);
        if (fixture.messageIncludes !== undefined) expect(result.issue.message).toContain(fixture.messageIncludes);
      });
    }
    // A fixture invalid under one version only must be valid under the other: that is what makes
    // it a version difference and not a typo.
    if (fixture.versions.length === 1) {
      const other = VERSIONS.find((version) => !fixture.versions.includes(version)) as XapiVersion;
      it(`accepts ${fixture.name} under ${other}, where the rule does not apply`, () => {
        const result = validateStatement(fixture.statement, other);
        expect(result.ok ? 'accepted' : result.issue).toBe('accepted');
      });
    }
  }

  for (const fixture of validFixtures.filter((candidate) => candidate.versions.length === 1)) {
    const other = VERSIONS.find((version) => !fixture.versions.includes(version)) as XapiVersion;
    it(`rejects ${fixture.name} under ${other}, where it is not valid`, () => {
      expect(validateStatement(fixture.statement, other).ok).toBe(false);
    });
  }
});
