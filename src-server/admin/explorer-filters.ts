/**
 * The Statement Explorer's filters as people type them, read as what the Store holds:
 * - actor (`agent`): agent JSON, an email address with or without `mailto:`, or a learner's name
 *   or account name, or part of it (`Ada`, `Ada Lovel`);
 * - verb: its IRI, or a word of its display (`completed`);
 * - activity: its IRI, or a word of its name (`Module 4`).
 * JSON, an email address and an IRI are exact; anything else is words, looked up in the Store's
 * names (storage/explorer-names.ts says how words match) and searched as every value they match
 * (a verb's or Activity's words that match no name are searched as its id: rejected statements
 * keep what was sent). The same reading gives the suggestions of the Explorer's autocompletes.
 */
import { searchWords } from '../storage/explorer-names';
import type { NamedKind } from '../storage/explorer-names';
import type { NameQuery, Storage, StoreRecord } from '../storage/storage';
import { agentOfKey, emailAgentKey, parseAgentParam } from '../xapi/agent-key';
import type { ExplorerSuggestionsView, ExplorerSuggestQueryInput } from './contract';

/** The most values words may stand for: beyond it the search asks for more of the name. */
export const MAX_WORD_MATCHES = 2000;

const PLURAL: Record<NamedKind, string> = { agent: 'learners', verb: 'verbs', activity: 'Activities' };

type Reading = { kind: 'exact'; value: string } | { kind: 'words'; words: string[] } | { kind: 'invalid'; message: string };

/** `scheme://…`, or `scheme:` and no space (urn:…, tag:…): an IRI, not words ("Module 4: Safety" is words). */
function looksLikeIri(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:(\/\/|\S+$)/i.test(text);
}

function wordsOr(text: string, message: string): Reading {
  const words = searchWords(text);
  return words.length > 0 ? { kind: 'words', words } : { kind: 'invalid', message };
}

function readFilter(field: NamedKind, raw: string): Reading {
  const text = raw.trim();
  if (field === 'agent') {
    if (text.startsWith('{')) {
      const parsed = parseAgentParam(text);
      return parsed.ok ? { kind: 'exact', value: parsed.key } : { kind: 'invalid', message: parsed.issue.message };
    }
    const key = emailAgentKey(text);
    if (key !== null) return { kind: 'exact', value: key };
    return wordsOr(text, 'agent must be a name, an email address (mailto: optional) or xAPI agent JSON');
  }
  if (looksLikeIri(text)) return { kind: 'exact', value: text };
  return wordsOr(text, `${field} must be an IRI or a word of its ${field === 'verb' ? 'display' : 'name'}`);
}

export type FilterValues = { ok: true; values: string | string[] } | { ok: false; message: string };

/** What a filter's text stands for: one key or IRI, or the values its words match (none: nothing matches). */
export async function resolveFilter(storage: Storage, store: StoreRecord, field: NamedKind, text: string): Promise<FilterValues> {
  const reading = readFilter(field, text);
  if (reading.kind === 'invalid') return { ok: false, message: reading.message };
  if (reading.kind === 'exact') return { ok: true, values: reading.value };
  const found = await storage.matchNames(store.id, { kind: field, words: reading.words, limit: MAX_WORD_MATCHES + 1 });
  if (found.length > MAX_WORD_MATCHES) {
    return {
      ok: false,
      message: `"${text.trim()}" matches more than ${MAX_WORD_MATCHES.toLocaleString('en-US')} ${PLURAL[field]}: type more of the name, or pick a suggestion`,
    };
  }
  // Words no name has may be an id that is no IRI, as a rejected statement can carry ("module one").
  if (found.length === 0 && field !== 'agent') return { ok: true, values: text.trim() };
  return { ok: true, values: found };
}

/** What a picked learner is shown with: the email address, or the account and its system. */
function agentDetail(agent: Record<string, unknown>): string {
  if (typeof agent.mbox === 'string') return agent.mbox.replace(/^mailto:/i, '');
  const account = agent.account as { homePage: string; name: string } | undefined;
  if (account) return `${account.name} at ${account.homePage}`;
  return String(agent.openid ?? agent.mbox_sha1sum ?? '');
}

/** The lookup of what is typed so far: words, or the start of an email address or an IRI. */
function suggestQuery(field: NamedKind, prefix: string, limit: number): NameQuery | null {
  const text = prefix.trim();
  if (field === 'agent') {
    if (text.startsWith('{')) return null;
    const email = /^(?:mailto:)?([^@\s]+)@(\S*)$/i.exec(text);
    // The key keeps an address's case but for its domain (xapi/agent-key.ts, normaliseMbox).
    if (email) return { kind: field, valuePrefix: `mbox:mailto:${email[1]}@${email[2]!.toLowerCase()}`, limit };
  } else if (looksLikeIri(text)) {
    return { kind: field, valuePrefix: text, limit };
  }
  const words = searchWords(text);
  return words.length > 0 ? { kind: field, words, limit } : null;
}

/** Up to `limit` of the Store's learners, verbs or Activities that what is typed could mean. */
export async function suggest(storage: Storage, store: StoreRecord, input: ExplorerSuggestQueryInput): Promise<ExplorerSuggestionsView> {
  const query = suggestQuery(input.field, input.prefix, input.limit);
  if (query === null) return { suggestions: [] };
  const found = await storage.lookupNames(store.id, query);
  return {
    suggestions: found.flatMap(({ value, name }) => {
      if (input.field !== 'agent') return [{ value, label: name, detail: value }];
      const agent = agentOfKey(value);
      if (agent === null) return [];
      // What the filter takes back: the email address as typed, anything else as agent JSON.
      const filter = typeof agent.mbox === 'string' ? agent.mbox : JSON.stringify(agent);
      return [{ value: filter, label: name, detail: agentDetail(agent) }];
    }),
  };
}
