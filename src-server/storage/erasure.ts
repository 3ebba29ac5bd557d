/**
 * Forgetting a learner and keeping data for a Store's period (docs/erasure-and-retention.md): the
 * values both backends share. Which agent keys an erasure reaches (the IFIs given, an mbox's
 * SHA-1 form, an mbox whose SHA-1 was given), how the learner is found where index terms do not
 * reach (JSON of rejected payloads and received copies, text of refused requests), and the erasure
 * ledger's salted hashes, which say that an erasure happened without keeping whom it was of.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { agentKey, emailAgentKey } from '../xapi/agent-key';
import type { Agent, Group } from '../xapi/statement-schema';

/** What an erasure removes (or, in a dry run, would remove) from one Store. */
export interface ErasureCounts {
  /** Statements in which the agent appears where `related_agents` finds it. */
  statements: number;
  /** Attachment payloads no remaining statement uses. */
  attachments: number;
  /** Entries of the rejected-statement log naming the agent. */
  rejections: number;
  /** Entries of the Store's log of refused requests naming the agent. */
  refusals: number;
  stateDocuments: number;
  agentProfileDocuments: number;
  /**
   * Statements of others whose copy as received names the agent where the stored statement does
   * not (a client-sent authority the LRS replaced): the copy is removed, the statement stays.
   */
  receivedCopies: number;
  /** Test Bench launches and State writes recorded for the agent. */
  testBenchRecords: number;
}

/** The rows an erasure decided, as counted (both backends decide them the same way). */
export interface ErasurePlan {
  seqs: readonly number[];
  attachments: readonly string[];
  rejections: readonly number[];
  refusals: readonly number[];
  received: readonly number[];
  launches: readonly string[];
  /** Documents of the keys, by kind. */
  documents: ReadonlyMap<string, number>;
  /** Test Bench State writes of the keys. */
  documentWrites: number;
}

export function countErasure(plan: ErasurePlan): ErasureCounts {
  return {
    statements: plan.seqs.length,
    attachments: plan.attachments.length,
    rejections: plan.rejections.length,
    refusals: plan.refusals.length,
    stateDocuments: plan.documents.get('state') ?? 0,
    agentProfileDocuments: plan.documents.get('agentProfile') ?? 0,
    receivedCopies: plan.received.length,
    testBenchRecords: plan.launches.length + plan.documentWrites,
  };
}

export const NO_ERASURE_COUNTS: ErasureCounts = {
  statements: 0,
  attachments: 0,
  rejections: 0,
  refusals: 0,
  stateDocuments: 0,
  agentProfileDocuments: 0,
  receivedCopies: 0,
  testBenchRecords: 0,
};

/** One entry of the erasure ledger: when, where, how much, and the IFIs only as salted hashes. */
export interface ErasureRecord {
  id: string;
  storeId: string;
  /** ISO 8601. */
  at: string;
  counts: ErasureCounts;
  /** Random per erasure, hex. */
  salt: string;
  /** SHA-256 (hex) of salt + canonical agent key, for every key the erasure reached, sorted. */
  ifiHashes: string[];
}

export interface ErasureRequest {
  /** Canonical agent keys (xapi/agent-key.ts) of the IFIs given: one person may have several. */
  keys: readonly string[];
  dryRun: boolean;
  /** ISO 8601 time of the request. */
  at: string;
}

export interface ErasureOutcome {
  dryRun: boolean;
  counts: ErasureCounts;
  /** The ledger entry written; null in a dry run. */
  erasure: ErasureRecord | null;
}

/** One step of a Store's retention: what is older than each cutoff (epoch ms; null: kept forever). */
export interface RetentionCutoffs {
  statementsBeforeMs: number | null;
  rejectionsBeforeMs: number | null;
  refusalsBeforeMs: number | null;
}

export interface RetentionStepResult {
  statements: number;
  rejections: number;
  refusals: number;
}

/**
 * Rows one retention step removes at most (per kind). On sql.js a step runs on the service's
 * thread: 1,000 statements held it ~90 ms (npm run bench:erasure), 250 about a quarter of that.
 */
export const RETENTION_STEP_ROWS = 250;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The ledger's hash of one agent key. */
export function ifiHash(salt: string, key: string): string {
  return sha256Hex(salt + key);
}

/** A fresh ledger entry for the keys reached (hashes only). */
export function newErasureRecord(storeId: string, at: string, keys: Iterable<string>, counts: ErasureCounts): ErasureRecord {
  const salt = randomBytes(16).toString('hex');
  return { id: randomUUID(), storeId, at, counts, salt, ifiHashes: [...new Set([...keys].map((key) => ifiHash(salt, key)))].sort() };
}

/** The keys among `candidates` whose hash with the entry's salt the entry holds: whom it erased. */
export function keysOfRecord(record: Pick<ErasureRecord, 'salt' | 'ifiHashes'>, candidates: Iterable<string>): string[] {
  const hashes = new Set(record.ifiHashes);
  return [...new Set(candidates)].filter((key) => hashes.has(ifiHash(record.salt, key)));
}

/** `mbox:mailto:…` → its `mbox_sha1sum:` form (xAPI: SHA-1 of the mailto IRI); null for other keys. */
function mboxSha1Key(key: string): string | null {
  if (!key.startsWith('mbox:')) return null;
  return `mbox_sha1sum:${createHash('sha1').update(key.slice('mbox:'.length), 'utf8').digest('hex')}`;
}

/**
 * Every key an erasure of `given` reaches: the keys themselves, the SHA-1 form of each mbox, and
 * each mbox among `candidates` (the Store's agents) whose SHA-1 form was given.
 */
export function erasureKeys(given: Iterable<string>, candidates: Iterable<string> = []): string[] {
  const keys = new Set(given);
  for (const key of [...keys]) {
    const sha1 = mboxSha1Key(key);
    if (sha1) keys.add(sha1);
  }
  if ([...keys].some((key) => key.startsWith('mbox_sha1sum:'))) {
    for (const candidate of candidates) {
      const sha1 = mboxSha1Key(candidate);
      if (sha1 && keys.has(sha1)) keys.add(candidate);
    }
  }
  return [...keys].sort();
}

/** Every agent key of any object inside a JSON value (a statement, a rejected payload, whatever its shape). */
export function agentKeysIn(value: unknown, found = new Set<string>(), depth = 0): Set<string> {
  if (typeof value !== 'object' || value === null || depth > 200) return found;
  if (Array.isArray(value)) {
    for (const item of value) agentKeysIn(item, found, depth + 1);
    return found;
  }
  const key = agentKey(value as Agent | Group);
  if (key !== null) {
    found.add(key);
    // A payload that failed validation may carry an mbox without its scheme: filed as the address.
    const mbox = (value as Record<string, unknown>).mbox;
    const email = typeof mbox === 'string' ? emailAgentKey(mbox) : null;
    if (email !== null) found.add(email);
  }
  for (const inner of Object.values(value)) agentKeysIn(inner, found, depth + 1);
  return found;
}

/** Whether a JSON value names one of the keys anywhere. */
export function jsonMentions(value: unknown, keys: ReadonlySet<string>): boolean {
  for (const key of agentKeysIn(value)) if (keys.has(key)) return true;
  return false;
}

/**
 * JSON text (a stored payload) that names one of the keys; text that is no JSON is searched as text.
 * Only text that holds a key's identifying words is parsed: most entries of a log are of others.
 */
export function jsonTextMentions(text: string, keys: ReadonlySet<string>): boolean {
  const lower = text.toLowerCase();
  if (![...keys].some((key) => identifyingTexts(key).every((needle) => needle !== '' && lower.includes(needle)))) return false;
  try {
    return jsonMentions(JSON.parse(text), keys) || plainTextMentions(text, keys);
  } catch {
    return plainTextMentions(text, keys);
  }
}

/**
 * The words of a key that identify the person in free text (a refused request's path and query,
 * a payload that is not JSON): the email address, the hash, the OpenID, the account's name with its
 * home page. Lower case.
 */
export function identifyingTexts(key: string): string[] {
  const colon = key.indexOf(':');
  const rest = key.slice(colon + 1);
  switch (key.slice(0, colon)) {
    case 'mbox':
      return [rest.replace(/^mailto:/i, '').toLowerCase()];
    case 'mbox_sha1sum':
    case 'openid':
      return [rest.toLowerCase()];
    case 'account': {
      const bar = rest.indexOf('|');
      return [rest.slice(0, bar).toLowerCase(), rest.slice(bar + 1).toLowerCase()];
    }
    default:
      return [rest.toLowerCase()];
  }
}

/**
 * Whether free text names one of the keys: every identifying text of a key occurs in it (for an
 * account both its home page and its name), read as typed and URL-decoded.
 */
export function plainTextMentions(text: string, keys: ReadonlySet<string>): boolean {
  let decoded = text;
  try {
    decoded = decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // Not URL-encoded: read as it is.
  }
  const haystacks = [text.toLowerCase(), decoded.toLowerCase()];
  for (const key of keys) {
    const needles = identifyingTexts(key);
    if (haystacks.some((hay) => needles.every((needle) => needle !== '' && hay.includes(needle)))) return true;
  }
  return false;
}

/** The sha2 of each attachment payload a stored statement declares. */
export function attachmentShas(statement: Record<string, unknown>): string[] {
  const list = statement.attachments;
  if (!Array.isArray(list)) return [];
  return list.flatMap((a) => (typeof a === 'object' && a !== null && typeof (a as { sha2?: unknown }).sha2 === 'string' ? [(a as { sha2: string }).sha2] : []));
}
