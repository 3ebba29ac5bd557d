/**
 * RFC 5646 language tags: the keys of language maps and `context.language`.
 *
 * xAPI 1.0.3 Part Two §2.2.s4.b2: "The LRS MUST at least validate that the sequence of token
 * lengths for language map keys matches the RFC 5646 standard." This goes a little further, as
 * ADL's suites do: the subtag kinds and order of RFC 5646 §2.1, no repeated variant, and no repeated
 * extension singleton (§2.2.6: `zh-z-aaa-z-bbb` is invalid). Registry membership is not checked.
 */

const ALNUM = '[A-Za-z0-9]';
const LANGTAG = new RegExp(
  '^(?:' +
    // language: 2-3 letters with up to three extlangs, or 4 (reserved) or 5-8 letters (registered)
    '(?<language>[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3})' +
    '(?:-(?<script>[A-Za-z]{4}))?' +
    '(?:-(?<region>[A-Za-z]{2}|\\d{3}))?' +
    `(?<variants>(?:-(?:${ALNUM}{5,8}|\\d${ALNUM}{3}))*)` +
    `(?<extensions>(?:-[0-9A-WY-Za-wy-z](?:-${ALNUM}{2,8})+)*)` +
    `(?:-[Xx](?:-${ALNUM}{1,8})+)?` +
    ')$',
  'u',
);
/** A tag that is only private use (RFC 5646 §2.2.7). */
const PRIVATE_USE = new RegExp(`^[Xx](?:-${ALNUM}{1,8})+$`, 'u');
/** RFC 5646 §2.2.8 grandfathered tags, which do not follow the grammar above. */
const GRANDFATHERED = new Set(
  [
    'en-GB-oed', 'i-ami', 'i-bnn', 'i-default', 'i-enochian', 'i-hak', 'i-klingon', 'i-lux', 'i-mingo',
    'i-navajo', 'i-pwn', 'i-tao', 'i-tay', 'i-tsu', 'sgn-BE-FR', 'sgn-BE-NL', 'sgn-CH-DE',
    'art-lojban', 'cel-gaulish', 'no-bok', 'no-nyn', 'zh-guoyu', 'zh-hakka', 'zh-min', 'zh-min-nan', 'zh-xiang',
  ].map((tag) => tag.toLowerCase()),
);

function hasDuplicate(items: string[]): boolean {
  return new Set(items).size !== items.length;
}

/**
 * Tags seen, and whether they are well formed: a statement carries a few language maps, nearly
 * always with the same handful of tags, and the check below costs about half a microsecond a
 * call. Bounded: it starts over when full, so a stream of made-up tags cannot grow it.
 */
const checked = new Map<string, boolean>();
const CHECKED_LIMIT = 1_000;

/** True for a well-formed RFC 5646 language tag (case-insensitive, §2.1.1). */
export function isLanguageTag(value: string): boolean {
  // Before the memo: only strings a tag can be are kept in it.
  if (value.length === 0 || value.length > 255) return false;
  let wellFormed = checked.get(value);
  if (wellFormed === undefined) {
    wellFormed = checkLanguageTag(value);
    if (checked.size >= CHECKED_LIMIT) checked.clear();
    checked.set(value, wellFormed);
  }
  return wellFormed;
}

function checkLanguageTag(value: string): boolean {
  if (GRANDFATHERED.has(value.toLowerCase()) || PRIVATE_USE.test(value)) return true;
  const match = LANGTAG.exec(value);
  if (!match?.groups) return false;
  const variants = (match.groups.variants ?? '').toLowerCase().split('-').filter(Boolean);
  if (hasDuplicate(variants)) return false;
  const singletons = (match.groups.extensions ?? '')
    .toLowerCase()
    .split('-')
    .filter((subtag) => subtag.length === 1);
  return !hasDuplicate(singletons);
}
