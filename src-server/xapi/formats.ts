/**
 * String formats that xAPI statements use: IRIs, mailto IRIs, UUIDs, hashes, durations, versions.
 * Each is a pure predicate so schemas, query parsing and tests share one definition.
 *
 * xAPI 1.0.3 Part Two §2.2.s4.b1.b4: an LRS rejects "any non-format-following key or value,
 * including the empty string, where a string with a particular format (such as mailto IRI, UUID,
 * or IRI) is required"; §2.2.s4.b6 allows best-effort IRI validation, which is what isIri does.
 */

import type { XapiVersion } from './version';

/** RFC 3987 §2.2 scheme, then at least one character of scheme-specific part. */
const IRI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:./su;
/**
 * Characters no IRI may contain (RFC 3987 §2.2: controls, spaces and `<>"{}|\^\``).
 * Unicode letters are allowed: IRIs, unlike URIs, may carry them unescaped.
 */
const IRI_FORBIDDEN = /[\p{Cc}\p{Zs}<>"{}|\\^`]/u;
/** A `%` must start a percent-encoded octet. */
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/u;

/**
 * Printable ASCII that neither IRI_FORBIDDEN nor BAD_PERCENT looks at: every character but
 * controls, space, DEL, `<>"{}|\^\`` and `%`. An IRI made only of these needs only its scheme checked.
 */
function isPlainIriAscii(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
    // " % < > \ ^ ` { | }
    if (c === 0x22 || c === 0x25 || c === 0x3c || c === 0x3e || c === 0x5c || c === 0x5e || c === 0x60 || c === 0x7b || c === 0x7c || c === 0x7d) return false;
  }
  return true;
}

/** An absolute IRI: a scheme (1.0.3 §2.2.s4.b1.b8 rejects IRIs "without a scheme") and no forbidden characters. */
export function isIri(value: string): boolean {
  // Nearly every IRI a statement carries is plain ASCII: one pass over it instead of two regexes.
  if (isPlainIriAscii(value)) return IRI_SCHEME.test(value);
  return IRI_SCHEME.test(value) && !IRI_FORBIDDEN.test(value) && !BAD_PERCENT.test(value);
}

/**
 * An IRL is an IRI meant to be dereferenced (1.0.3 Part Two §4.3). Nothing in a statement tells a
 * locator from an identifier, so the check is the IRI one.
 */
export function isIrl(value: string): boolean {
  return isIri(value);
}

/**
 * `mailto:` followed by one email address (1.0.3 §2.4.2.3: mbox is "mailto:email address").
 * Best effort: a local part and a domain without whitespace, no query, no second address.
 */
const MAILTO = /^mailto:[^\s@<>()[\]\\,;:"?#]+@[^\s@<>()[\]\\,;:"?#/]+$/u;
export function isMailtoIri(value: string): boolean {
  return MAILTO.test(value) && !BAD_PERCENT.test(value);
}

/** 40 hexadecimal digits: the SHA-1 of a mailto IRI (1.0.3 §2.4.2.3 mbox_sha1sum). */
export function isSha1Hex(value: string): boolean {
  return /^[0-9a-fA-F]{40}$/u.test(value);
}

/** SHA-2 of an attachment, hexadecimal: SHA-224/256/384/512 (1.0.3 §2.4.11 sha2). */
export function isSha2Hex(value: string): boolean {
  return /^(?:[0-9a-fA-F]{56}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96}|[0-9a-fA-F]{128})$/u.test(value);
}

/**
 * RFC 4122 string form, any version, either case (1.0.3 Part Two §4.4: "UUIDs MUST be in
 * standard string form"). Case does not matter to a UUID; the LRS compares them lower-cased.
 */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/u;
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * ISO 8601:2004 §4.4.3.2 duration (1.0.3 Part Two §4.6): `P` then Y, M, W or D and an optional
 * `T` with H, M, S. Weeks stand alone (ISO 8601 does not combine W with other units; ADL's suite
 * rejects `P4W1D`). Only the last component may have a decimal fraction. The alternative format
 * of §4.4.3.3 (`P0003-01-29T...`) MUST NOT be used, so it is rejected.
 */
const NUM = String.raw`\d+(?:[.,]\d+)?`;
const DURATION = new RegExp(
  `^P(?:(${NUM}W)|(?:(${NUM}Y)?(${NUM}M)?(${NUM}D)?)(?:T(${NUM}H)?(${NUM}M)?(${NUM}S)?)?)$`,
  'u',
);
export function isIsoDuration(value: string): boolean {
  const match = DURATION.exec(value);
  if (!match) return false;
  const parts = match.slice(1).filter((part): part is string => part !== undefined);
  if (parts.length === 0) return false;
  // "PT" alone, or a trailing "T" with no time component, is not a duration.
  if (value.includes('T') && match[5] === undefined && match[6] === undefined && match[7] === undefined) return false;
  // ISO 8601 §4.4.3.2: a decimal fraction only on the lowest order component present.
  return parts.slice(0, -1).every((part) => !/[.,]/u.test(part));
}

/**
 * The statement's `version` property. 1.0.3 §2.4.10.s3.b2: "An LRS MUST reject all Statements
 * with a version specified that does not start with 1.0." A 2.0.0 LRS also takes 1.0.x statements
 * (ADL's 2.0 suite sends version "1.0" and "1.0.9" and expects 200), and 2.0.x ones.
 */
export function isStatementVersion(value: string, version: XapiVersion): boolean {
  return version === '2.0.0' ? /^(?:1|2)\.0(?:\.\d+)?$/u.test(value) : /^1\.0(?:\.\d+)?$/u.test(value);
}

/** An Internet media type, `type/subtype` with optional parameters (1.0.3 §2.4.11 contentType). */
export function isMediaType(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;.*)?$/su.test(value);
}
