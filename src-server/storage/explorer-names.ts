/**
 * What the Statement Explorer finds by name, the same for every Storage implementation: learners
 * (agents) by their name or account name, verbs by their display, Activities by the name of the
 * definition the Store keeps. Each implementation keeps, per Store, one entry per agent, verb and
 * Activity that has a name (the newest name it was given) and the words of that name; this module
 * decides what the entry and its words are. They are console data derived from what is stored,
 * like the ingestion statistics: written with the statements and definitions, rebuilt from them
 * for data written before they existed.
 *
 * Words are lower-cased with accents folded (`Zoë` is found by `zoe`) and split at anything that
 * is not a letter or a digit, so `Safety 3, module 4` has the words `safety 3 module 4`. A search
 * matches a name that has the words typed, in the order typed, starting at one of its words, the
 * last word typed possibly cut short: `Ada` and `Ada Lovel` find Ada Lovelace, `Lovelace` does
 * too, `Module 4` finds `Safety 3, module 4` (and not `module 0, item 4`), `ace` does not find
 * Lovelace. Prefixes of words rather than any substring: people type the start of a name, and a
 * substring would bring noise (`ada` in Canada, `4` in 14) and could not be served by an index;
 * the words as a phrase rather than each anywhere, so that `Module 4` means module 4.
 */
import { agentKey } from '../xapi/agent-key';
import { preferredText } from '../xapi/language-map';
import type { Agent, Group } from '../xapi/statement-schema';
import { languageMap } from './statement-facts';

export type NamedKind = 'agent' | 'verb' | 'activity';

/** One agent, verb or Activity of a Store with its name, as kept for the Explorer. */
export interface NameEntry {
  kind: NamedKind;
  /** The agent's canonical key (xapi/agent-key.ts), the verb's IRI, the Activity's IRI. */
  value: string;
  /** The name shown: a learner's name, a verb's display, an Activity's name (en-US or English first). */
  name: string;
  /** What its words are read from (the name, an account name, every language of a map); compared to tell a change. */
  text: string;
}

/** Bounds that keep one entry small whatever a statement sends. */
const MAX_NAME_LENGTH = 200;
const MAX_WORDS = 32;
const MAX_WORD_LENGTH = 40;

/** The words of a text: lower case, accents folded, split at anything not a letter or digit. */
export function searchWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0)
    .slice(0, MAX_WORDS)
    .map((word) => word.slice(0, MAX_WORD_LENGTH));
}

/**
 * An entry's words in order, as one string with a space before each word: a search for the words
 * w1 w2 matches where ` w1 w2` occurs in it (a phrase that starts at a word, its last word a prefix).
 */
export function searchText(text: string): string {
  return searchPhrase(searchWords(text));
}

/** The distinct words of a search text: what the word index holds for its entry. */
export function indexWords(text: string): string[] {
  return [...new Set(text.split(' ').filter((word) => word.length > 0))];
}

/** The phrase stored texts are searched for (see searchText): the typed words, each after a space. */
export function searchPhrase(words: readonly string[]): string {
  return words.map((word) => ` ${word}`).join('');
}

/**
 * The typed word a lookup reads the word index by (the phrase then decides on what it finds): the
 * longest, as longer words are rarer as a rule ("lovelace" before "ada"). A word before the last
 * one typed is a whole word of the name, so it is looked up whole; the last may be cut short.
 */
export function indexedWord(words: readonly string[]): { word: string; whole: boolean } | null {
  let best = -1;
  for (let i = 0; i < words.length; i++) if (best < 0 || words[i]!.length > words[best]!.length) best = i;
  return best < 0 ? null : { word: words[best]!, whole: best < words.length - 1 };
}

/**
 * The upper bound of a prefix range: every word that starts with `prefix` sorts at or above it and
 * below this (U+10FFFF sorts after any character, in UTF-8 bytes as in UTF-16 code points).
 */
export function prefixEnd(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An agent or identified group with a name or an account name; null otherwise. */
function agentEntry(agent: Record<string, unknown>): NameEntry | null {
  const key = agentKey(agent as Agent | Group);
  if (key === null) return null;
  const name = str(agent.name);
  const account = isObject(agent.account) ? str(agent.account.name) : undefined;
  if (name === undefined && account === undefined) return null;
  // Found by the account name too: content often names people only by an LMS user id.
  const text = [name, account].filter((t) => t !== undefined).join('\n');
  return { kind: 'agent', value: key, name: (name ?? account!).slice(0, MAX_NAME_LENGTH), text };
}

/** An actor or an Agent/Group object: itself and, for a Group, each member. */
function addPeople(entries: NameEntry[], who: unknown): void {
  if (!isObject(who)) return;
  const entry = agentEntry(who);
  if (entry) entries.push(entry);
  if (who.objectType === 'Group' && Array.isArray(who.member)) {
    for (const member of who.member) if (isObject(member)) {
      const memberEntry = agentEntry(member);
      if (memberEntry) entries.push(memberEntry);
    }
  }
}

/**
 * The names a stored statement gives: its actor's and its Agent or Group object's (the people it is
 * about: not its authority, which names the API key), and its verb's display.
 */
export function statementNameEntries(statement: Record<string, unknown>): NameEntry[] {
  const entries: NameEntry[] = [];
  addPeople(entries, statement.actor);
  const object = statement.object;
  if (isObject(object) && (object.objectType === 'Agent' || object.objectType === 'Group')) addPeople(entries, object);
  const verb = statement.verb;
  if (isObject(verb) && typeof verb.id === 'string') {
    const display = languageMap(verb.display);
    const name = preferredText(display);
    if (display && name !== null && name.trim() !== '') {
      entries.push({ kind: 'verb', value: verb.id, name: name.slice(0, MAX_NAME_LENGTH), text: Object.values(display).join('\n') });
    }
  }
  return entries;
}

/** The entry of an Activity from the definition the Store keeps; null when it has no name. */
export function activityNameEntry(activityId: string, definition: Record<string, unknown>): NameEntry | null {
  const names = languageMap(definition.name);
  const name = preferredText(names);
  if (!names || name === null || name.trim() === '') return null;
  return { kind: 'activity', value: activityId, name: name.slice(0, MAX_NAME_LENGTH), text: Object.values(names).join('\n') };
}

/**
 * The entries of statements written in this order: one per (kind, value), the last statement's
 * name winning, as a later statement's name replaces an earlier one.
 */
export function latestNameEntries(statements: ReadonlyArray<Record<string, unknown>>): NameEntry[] {
  const latest = new Map<string, NameEntry>();
  for (const statement of statements) {
    for (const entry of statementNameEntries(statement)) latest.set(`${entry.kind}\u0000${entry.value}`, entry);
  }
  return [...latest.values()];
}
