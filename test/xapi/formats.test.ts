import { describe, expect, it } from 'vitest';
import {
  isIri,
  isIsoDuration,
  isMailtoIri,
  isMediaType,
  isSha1Hex,
  isSha2Hex,
  isStatementVersion,
  isUuid,
} from '../../src-server/xapi/formats';
import { isLanguageTag } from '../../src-server/xapi/language-tag';
import { parseTimestamp, toUtcIso } from '../../src-server/xapi/timestamp';

describe('isIri', () => {
  it.each(['http://example.com/a', 'https://例え.jp/パス', 'urn:uuid:6f1c2a4e-3b5d-4c7e-9f80-1a2b3c4d5e6f', 'mailto:a@b.c', 'tag:example.com,2024:x%20y'])(
    'accepts %s',
    (value) => expect(isIri(value)).toBe(true),
  );
  it.each(['', 'completed', 'ab=c://should.fail.com', '://x', 'http:', 'http://exa mple.com', 'http://e.com/<a>', 'http://e.com/%zz', '1http://e.com'])(
    'rejects %j',
    (value) => expect(isIri(value)).toBe(false),
  );

  it('decides every character the same way in its plain-ASCII shortcut as by the rule', () => {
    // The rule as the specification reads: a scheme, then no control, space or <>"{}|\^` character,
    // and a % only before two hexadecimal digits.
    const rule = (value: string) =>
      /^[A-Za-z][A-Za-z0-9+.-]*:./su.test(value) && !/[\p{Cc}\p{Zs}<>"{}|\\^`]/u.test(value) && !/%(?![0-9A-Fa-f]{2})/u.test(value);
    const characters = [...Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code)), '\u0085', '\u00a0', '\u2003', 'é', '\ud83d\ude00'];
    for (const c of characters) {
      for (const value of [`http://e.com/${c}`, `${c}http://e.com`, `h${c}:x`, `urn:${c}`, `http://e.com/${c}41`]) expect(isIri(value), JSON.stringify(value)).toBe(rule(value));
    }
  });
});

describe('isMailtoIri', () => {
  it.each(['mailto:ada@example.com', 'mailto:first.last+tag@sub.example.co.uk', 'mailto:a@localhost'])('accepts %s', (value) =>
    expect(isMailtoIri(value)).toBe(true),
  );
  it.each(['ada@example.com', 'mailto:', 'mailto:ada', 'mailto:should.fail.com', 'mailto:a@b@c', 'mailto:a b@c.com', 'http://should.fail.com', 'mailto:a@b.com?subject=x'])(
    'rejects %j',
    (value) => expect(isMailtoIri(value)).toBe(false),
  );
});

describe('isUuid', () => {
  it('accepts either case and any version', () => {
    expect(isUuid('8f87ccde-bb56-4c2e-ab83-44982ef22df0')).toBe(true);
    expect(isUuid('8F87CCDE-BB56-4C2E-AB83-44982EF22DF0')).toBe(true);
    expect(isUuid('00000000-0000-0000-0000-000000000000')).toBe(true);
  });
  it.each(['AA97B177-9383-4934-8543-0F91A7A028368', 'MA97B177-9383-4934-8543-0F91A7A02836', '8f87ccdebb564c2eab8344982ef22df0', '{8f87ccde-bb56-4c2e-ab83-44982ef22df0}'])(
    'rejects %s',
    (value) => expect(isUuid(value)).toBe(false),
  );
});

describe('hashes, media types and versions', () => {
  it('knows SHA-1 and SHA-2 hex lengths', () => {
    expect(isSha1Hex('cd9b00a5611f94eaa7b1661edab976068e364975')).toBe(true);
    expect(isSha1Hex('cd9b00a5611f94eaa7b1661edab976068e36497')).toBe(false);
    expect(isSha2Hex('a'.repeat(64))).toBe(true);
    expect(isSha2Hex('a'.repeat(128))).toBe(true);
    expect(isSha2Hex('a'.repeat(63))).toBe(false);
    expect(isSha2Hex('g'.repeat(64))).toBe(false);
  });

  it('accepts media types with parameters and rejects bare words', () => {
    expect(isMediaType('application/pdf')).toBe(true);
    expect(isMediaType('text/plain; charset=utf-8')).toBe(true);
    expect(isMediaType('pdf')).toBe(false);
  });

  it('accepts 1.0.x everywhere and 2.0.x only under 2.0.0', () => {
    expect(isStatementVersion('1.0', '1.0.3')).toBe(true);
    expect(isStatementVersion('1.0.9', '1.0.3')).toBe(true);
    expect(isStatementVersion('2.0.0', '1.0.3')).toBe(false);
    expect(isStatementVersion('2.0.0', '2.0.0')).toBe(true);
    expect(isStatementVersion('1.0.3', '2.0.0')).toBe(true);
    for (const bad of ['1.1.0', '0.9.9', '1', '1.0.', '2.1']) expect(isStatementVersion(bad, '2.0.0')).toBe(false);
  });
});

describe('isIsoDuration (ISO 8601 §4.4.3.2)', () => {
  it.each(['PT4H35M59.14S', 'PT16559.14S', 'P3Y1M29DT4H35M59.14S', 'P3Y', 'P4W', 'PT1H0M0.1S', 'P1DT12H36M0.12567S', 'P0D', 'PT0,5S', 'P1.5Y'])(
    'accepts %s',
    (value) => expect(isIsoDuration(value)).toBe(true),
  );
  it.each(['', 'P', 'PT', 'P1DT', 'PA1H0M0S', 'P4W1D', 'PT1.5H30M', '1H', 'P0003-01-29T04:35:59', 'PT-1S', 'pt1s'])('rejects %j', (value) =>
    expect(isIsoDuration(value)).toBe(false),
  );
});

describe('isLanguageTag (RFC 5646)', () => {
  it.each(['en', 'en-US', 'de-DE', 'zh-Hant', 'zh-Hans-CN', 'sr-Latn-RS', 'es-419', 'cmn', 'ase', 'sl-rozaj-biske', 'de-CH-1996', 'en-a-bbb-x-priv', 'x-whatever', 'i-klingon', 'EN-us', 'zh-yue-HK'])(
    'accepts %s',
    (value) => expect(isLanguageTag(value)).toBe(true),
  );
  it.each(['', 'something', 'english', 'a12345', 's-something', 'zh-something-ccc', 'zh-z-aaa-z-bbb-c-ccc', 'de-1996-1996', 'en_US', 'en-', '-en', 'en--US'])(
    'rejects %j',
    (value) => expect(isLanguageTag(value)).toBe(false),
  );
  it('answers the same when asked again, and after more tags than it remembers', () => {
    const tags = ['en-US', 'zh-z-aaa-z-bbb', 'de-CH-1996', 'en--US'];
    const first = tags.map(isLanguageTag);
    expect(first).toEqual([true, false, true, false]);
    // Past the memo's bound (1,000 tags) it starts over: the answers stay the same.
    for (let i = 0; i < 1_500; i++) isLanguageTag(`x-t${i}`);
    expect(tags.map(isLanguageTag)).toEqual(first);
    expect(isLanguageTag('x-t1499')).toBe(true);
  });
});

describe('parseTimestamp', () => {
  it('reads the zone forms Z, ±hh:mm, ±hhmm and ±hh as the same instant', () => {
    const instant = Date.UTC(2024, 4, 1, 7, 30, 0, 123);
    for (const text of ['2024-05-01T07:30:00.123Z', '2024-05-01T09:30:00.123+02:00', '2024-05-01T09:30:00.123+0200', '2024-05-01T09:30:00.123+02', '2024-05-01T02:30:00.123-05:00']) {
      expect(parseTimestamp(text, '2.0.0')).toBe(instant);
    }
  });

  it('truncates fractions beyond milliseconds and accepts times without seconds', () => {
    expect(toUtcIso('2024-05-01T07:30:00.1239Z', '2.0.0')).toBe('2024-05-01T07:30:00.123Z');
    expect(toUtcIso('2024-05-01T07:30Z', '2.0.0')).toBe('2024-05-01T07:30:00.000Z');
  });

  it('reads a time without zone as UTC under 1.0.3 and refuses it under 2.0.0', () => {
    expect(toUtcIso('2024-05-01T07:30:00', '1.0.3')).toBe('2024-05-01T07:30:00.000Z');
    expect(parseTimestamp('2024-05-01T07:30:00', '2.0.0')).toBeNull();
  });

  it.each(['2008-09-15T15:53:00.601-00', '2008-09-15T15:53:00.601-0000', '2008-09-15T15:53:00.601-00:00'])(
    'refuses the unknown-offset form %s (RFC 3339 §4.3)',
    (value) => expect(parseTimestamp(value, '1.0.3')).toBeNull(),
  );

  it.each(['01/011/2015', 'should fail', '2023-02-29T00:00:00Z', '2024-13-01T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01T10:60:00Z', '2024-01-01T10:00:00+25:00', '2024-01-01', '20240101T000000Z'])(
    'refuses %j',
    (value) => expect(parseTimestamp(value, '1.0.3')).toBeNull(),
  );

  it('accepts a leap day and years before 100', () => {
    expect(toUtcIso('2024-02-29T00:00:00Z', '2.0.0')).toBe('2024-02-29T00:00:00.000Z');
    expect(toUtcIso('0050-06-01T00:00:00Z', '2.0.0')).toBe('0050-06-01T00:00:00.000Z');
  });
});

describe('format checks on hostile lengths', () => {
  it('answer a 100,000-character value quickly (no catastrophic backtracking)', () => {
    const long = '1'.repeat(100_000);
    const started = performance.now();
    expect(isIsoDuration(`P${long}`)).toBe(false);
    expect(isIsoDuration(`PT${long}.${long}`)).toBe(false);
    expect(isMailtoIri(`mailto:${'a'.repeat(100_000)}@${'b'.repeat(100_000)} `)).toBe(false);
    expect(isIri(`http://${'a'.repeat(100_000)} `)).toBe(false);
    expect(parseTimestamp(`2024-01-01T00:00:00.${long}x`, '1.0.3')).toBeNull();
    expect(isLanguageTag('a-'.repeat(100_000))).toBe(false);
    // Catastrophic backtracking on 100,000 characters takes hours; a loaded CI machine, not 5 s.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
