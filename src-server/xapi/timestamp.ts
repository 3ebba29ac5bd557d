/**
 * ISO 8601 timestamps (xAPI 1.0.3 Part Two §4.5; 2.0.0 Part Two §4.5).
 *
 * - Combined date and time in extended format: `YYYY-MM-DDThh:mm[:ss[.fff]]` and a zone
 *   `Z`, `±hh:mm`, `±hhmm` or `±hh`.
 * - 1.0.3 says a timestamp SHOULD include the time zone; one without is read as UTC.
 *   2.0.0 requires the zone, so under 2.0.0 a timestamp without one is rejected.
 * - RFC 3339 §4.3: `-00:00` means "offset unknown"; ADL's suites require its rejection (and that
 *   of `-00` and `-0000`), since the point in time is then not known.
 * - The calendar must be real: 2023-02-30 is rejected.
 */

import type { XapiVersion } from './version';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/u;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Milliseconds since the epoch for a valid xAPI timestamp, or null when the string is not one.
 * Fractions beyond milliseconds are truncated (1.0.3 §4.5.s1.b7 allows truncation to 3 digits).
 */
export function parseTimestamp(value: string, version: XapiVersion): number | null {
  const m = TIMESTAMP.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const hasZone = zulu !== undefined || sign !== undefined;
  if (!hasZone && version === '2.0.0') return null;
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const offH = Number(oh);
    const offM = om === undefined ? 0 : Number(om);
    if (offH > 23 || offM > 59) return null;
    // RFC 3339 §4.3 "unknown local offset": not a point in time.
    if (sign === '-' && offH === 0 && offM === 0) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
  }
  const ms = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
  // Date.UTC maps years 0-99 to 1900-1999; set the full year explicitly.
  if (year < 100) {
    const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
    date.setUTCFullYear(year);
    return date.getTime() - offsetMinutes * 60_000;
  }
  return Number.isFinite(utc) ? utc : null;
}

/** True when the string is a timestamp the given version accepts. */
export function isTimestamp(value: string, version: XapiVersion): boolean {
  return parseTimestamp(value, version) !== null;
}

/**
 * The same instant as ISO 8601 in UTC with milliseconds (`2024-05-01T09:30:00.000Z`), the form
 * the LRS stores and compares (1.0.3 §4.5.s1.b6: "The LRS SHOULD* return the Timestamp in UTC").
 */
export function toUtcIso(value: string, version: XapiVersion): string | null {
  const ms = parseTimestamp(value, version);
  return ms === null ? null : new Date(ms).toISOString();
}
