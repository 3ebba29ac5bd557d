/**
 * One text from an xAPI language map (a verb's display, an Activity's name), picked the same way
 * wherever a person reads it: the console's sentences, the Explorer's names, the Test Bench's
 * reports and checks. Pure, so the console imports it too.
 */

/** en-US, then any English (`en`, `en-GB`, ...), then the first entry; empty texts never count. */
export function preferredText(map: unknown): string | null {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return null;
  const entries = Object.entries(map).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== '');
  const pick =
    entries.find(([tag]) => tag.toLowerCase() === 'en-us') ?? entries.find(([tag]) => /^en(-|$)/i.test(tag)) ?? entries[0];
  return pick?.[1] ?? null;
}
