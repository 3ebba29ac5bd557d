/**
 * The X-Experience-API-Version header (xAPI 1.0.3 Part Three §6.2; 2.0.0 Part Three §1.3).
 * 1.0.0–1.0.3 are served by the 1.0.3 rules (authoring tools still send 1.0.2); 2.0.0 by 2.0's.
 */

export const VERSION_HEADER = 'x-experience-api-version';

export type XapiVersion = '1.0.3' | '2.0.0';

/** Any patch level of 1.0 or 2.0 is accepted (1.0.3 §6.2: "1.0" is read as "1.0.0"). */
const ACCEPTED_PATTERN = /^(1|2)\.0(\.\d+)?$/;

/** What an error message lists as accepted. */
export const ACCEPTED_VERSIONS_TEXT = '1.0, 1.0.0 to 1.0.3 (any 1.0.x), 2.0, 2.0.0';

/** Version the service announces in /about, newest last. */
export const ANNOUNCED_VERSIONS = ['1.0.0', '1.0.1', '1.0.2', '1.0.3', '2.0.0'] as const;

/** Maps a header value to the rule set that serves it, or null when it is not accepted. */
export function parseVersionHeader(value: string | undefined): XapiVersion | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  const match = ACCEPTED_PATTERN.exec(trimmed);
  if (!match) return null;
  return match[1] === '2' ? '2.0.0' : '1.0.3';
}
