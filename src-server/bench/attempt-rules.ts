/**
 * The Test Bench's checker: the statements of one attempt (a registration of the bench learner),
 * the rules they break (docs/test-bench-rules.md sections 4 and 5), and the outcome as an LMS
 * would record it. Pure: no I/O, no state kept between calls.
 *
 * Rule codes:
 *
 *   cmi5 (checked on the AU's statements; the LMS's own launched, satisfied, abandoned and waived
 *   are told by their verb and only read, never checked):
 *     cmi5.actor                   actor is not the launch actor (error)
 *     cmi5.registration            context.registration missing or not the launch registration (error)
 *     cmi5.session-id              no session id extension: the statement is "not allowed" (error)
 *     cmi5.session-unknown         a session id the LMS never launched for this AU (error)
 *     cmi5.publisher-grouping      contextActivities.grouping lacks the publisher id activity (error)
 *     cmi5.timestamp               no timestamp, or one not in UTC (error)
 *     cmi5.category-cmi5           a cmi5 verb about the AU without the cmi5 category (error)
 *     cmi5.category-not-allowed    the cmi5 category on a verb cmi5 does not define for AUs (error)
 *     cmi5.category-moveon         moveon category missing where success/completion is set, or present elsewhere (error)
 *     cmi5.object                  a cmi5 defined statement whose object is not the AU (error)
 *     cmi5.result-success, cmi5.result-completion, cmi5.result-score, cmi5.result-duration
 *                                  the result a verb must or must not carry (4.3, errors)
 *     cmi5.score-range             scaled outside 0..1, raw without min/max or outside them (error)
 *     cmi5.progress                progress extension not an integer 0..100 (error)
 *     cmi5.progress-on-completed   progress extension on "completed" (warning)
 *     cmi5.progress-after-completed  progress extension after "completed" (warning)
 *     cmi5.mastery-passed          "passed" with scaled below masteryScore (error)
 *     cmi5.mastery-failed          "failed" with scaled at or above masteryScore (error)
 *     cmi5.mastery-extension       masteryscore context extension missing or not masteryScore (error)
 *     cmi5.passed-without-score    "passed" without scaled while a masteryScore applies (warning)
 *     cmi5.initialized-first       an AU statement before "initialized" in its session, or none at all (error)
 *     cmi5.after-terminated        anything from the AU after "terminated" in its session (error)
 *     cmi5.after-abandoned         anything from the AU stored after the LMS abandoned its session (error)
 *     cmi5.session-verb-repeated   "initialized" or "failed" twice in one session (error)
 *     cmi5.session-passed-and-failed  both "passed" and "failed" in one session (error)
 *     cmi5.completed-once          a second "completed" in the registration (error)
 *     cmi5.passed-once             a second "passed" in the registration (error)
 *     cmi5.failed-after-passed     "failed" after a "passed" in the registration (error)
 *     cmi5.launch-mode             "completed", "passed" or "failed" in a Browse or Review session (error)
 *     cmi5.session-abandoned       the LMS abandoned a session: the AU never sent "terminated" (warning)
 *
 *   Tin Can:
 *     tincan.actor                 actor's identifier is not the launch actor's (error)
 *     tincan.actor-name            same identifier, another name (warning)
 *     tincan.registration          context.registration missing or not the launch registration (error)
 *     tincan.activity              object is an activity neither launched, listed nor below the launched one (warning)
 *     tincan.object-not-activity   object is an Agent, Group, StatementRef or SubStatement (warning)
 *
 * The outcome counts only statements without an error: a conforming LMS rejects (or voids) a
 * statement that breaks a MUST, so it never reaches the learner's record.
 */
import { normaliseMbox } from '../xapi/agent-key';
import { preferredText } from '../xapi/language-map';
import { CMI5_ID, LMS_VERBS, VERB } from './cmi5-vocabulary';
import type { MoveOn } from './package-description';

/** A statement as stored: its JSON. */
export type StatementLike = Record<string, unknown>;

export interface AttemptStatement {
  statement: StatementLike;
  /** When the Store stored it (ISO 8601). */
  stored: string;
  /** The key that sent it; null when the LMS (the bench) wrote it. */
  keyId: string | null;
  voided: boolean;
}

export interface Violation {
  statementId: string | null;
  /** A stable code such as `cmi5.initialized-first`. */
  rule: string;
  severity: 'error' | 'warning';
  /** Plain English naming what is wrong. */
  message: string;
}

export interface AttemptOutcome {
  completion: boolean | null;
  success: boolean | null;
  score: { scaled?: number; raw?: number; min?: number; max?: number } | null;
  duration: string | null;
}

export interface Cmi5AttemptContext {
  kind: 'cmi5';
  registration: string;
  actor: StatementLike;
  /** The LMS's id for the launched AU. */
  auActivityId: string;
  publisherId: string;
  masteryScore: number | null;
  moveOn: MoveOn;
  launchMode: 'Normal' | 'Browse' | 'Review';
  /** The sessions the LMS launched for this AU in this registration, in order. */
  sessionIds: string[];
}

export interface TincanAttemptContext {
  kind: 'tincan';
  registration: string;
  actor: StatementLike;
  activityId: string;
  knownActivityIds: string[];
}

const AU_VERBS: ReadonlySet<string> = new Set([VERB.initialized, VERB.completed, VERB.passed, VERB.failed, VERB.terminated]);
const JUDGED_VERBS: ReadonlySet<string> = new Set([VERB.completed, VERB.passed, VERB.failed]);

const CATEGORY_CMI5 = CMI5_ID.categoryCmi5;
const CATEGORY_MOVEON = CMI5_ID.categoryMoveOn;
const EXT_SESSION = CMI5_ID.sessionId;
const EXT_MASTERY = CMI5_ID.masteryScore;
const EXT_LAUNCH_MODE = CMI5_ID.launchMode;
const EXT_PROGRESS = CMI5_ID.progress;

// ---------------------------------------------------------------------------------------------
// Reading a statement's JSON without trusting its shape.

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function activityIds(list: unknown): string[] {
  if (Array.isArray(list)) return list.flatMap((activity) => text(record(activity)?.id) ?? []);
  const single = text(record(list)?.id); // 0.95 allowed a single activity, not a list
  return single === undefined ? [] : [single];
}

/** The parts of a statement the rules read. */
interface Facts {
  id: string | null;
  verbId: string | null;
  verbLabel: string;
  objectType: string;
  objectId: string | null;
  registration: string | undefined;
  sessionId: unknown;
  categories: string[];
  grouping: string[];
  contextExtensions: Json;
  result: Json | undefined;
  timestamp: string | undefined;
}

function facts(statement: StatementLike): Facts {
  const verb = record(statement.verb);
  const verbId = text(verb?.id) ?? null;
  const object = record(statement.object);
  const context = record(statement.context);
  const contextActivities = record(context?.contextActivities);
  const contextExtensions = record(context?.extensions) ?? {};
  return {
    id: text(statement.id) ?? null,
    verbId,
    verbLabel: verbLabel(record(verb?.display), verbId),
    objectType: text(object?.objectType) ?? 'Activity',
    objectId: text(object?.id) ?? null,
    registration: text(context?.registration),
    sessionId: contextExtensions[EXT_SESSION],
    categories: activityIds(contextActivities?.category),
    grouping: activityIds(contextActivities?.grouping),
    contextExtensions,
    result: record(statement.result),
    timestamp: text(statement.timestamp),
  };
}

/** `"passed"`: the verb's display as the console shows it, or the last part of its id. */
function verbLabel(display: Json | undefined, verbId: string | null): string {
  const shown = preferredText(display);
  if (shown !== null) return `"${shown}"`;
  if (verbId === null) return 'a statement without a verb';
  return `"${verbId.replace(/\/+$/, '').split(/[/#]/).pop() ?? verbId}"`;
}

function shortSession(sessionId: string): string {
  return `session ${sessionId.length > 8 ? `${sessionId.slice(0, 8)}…` : sessionId}`;
}

function has(result: Json | undefined, key: string): boolean {
  return result !== undefined && result[key] !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Agents, normalised as TinCanJS does with legacy forms (docs/test-bench-rules.md 1.2).

interface AgentIdentity {
  key: string | null;
  name: string | null;
}

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function agentIdentity(agent: unknown): AgentIdentity {
  const raw = record(agent);
  if (raw === undefined) return { key: null, name: null };
  const name = text(first(raw.name)) ?? null;
  const mbox = text(first(raw.mbox));
  if (mbox !== undefined) return { key: `mbox:${normaliseMbox(/^mailto:/i.test(mbox) ? mbox : `mailto:${mbox}`)}`, name };
  const sha1 = text(first(raw.mbox_sha1sum));
  if (sha1 !== undefined) return { key: `mbox_sha1sum:${sha1.toLowerCase()}`, name };
  const openid = text(first(raw.openid));
  if (openid !== undefined) return { key: `openid:${openid}`, name };
  const account = record(first(raw.account));
  const homePage = text(account?.homePage) ?? text(account?.accountServiceHomePage);
  const accountName = text(account?.name) ?? text(account?.accountName);
  if (homePage !== undefined && accountName !== undefined) return { key: `account:${homePage}|${accountName}`, name };
  return { key: null, name };
}

function describeAgent(identity: AgentIdentity): string {
  if (identity.key === null) return 'an agent with no identifier';
  return identity.key.replace(/^account:(.*?)\|(.*)$/, 'account $2 at $1').replace(/^(mbox|mbox_sha1sum|openid):/, '$1 ');
}

// ---------------------------------------------------------------------------------------------
// Durations (ISO 8601), for the outcome.

const DURATION = /^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;
/** Seconds per unit; a year and a month by their usual averages (they do not occur in session times). */
const UNIT_SECONDS = [365 * 86_400, 30 * 86_400, 7 * 86_400, 86_400, 3_600, 60, 1];

function durationSeconds(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = DURATION.exec(value);
  if (match === null || value === 'P' || value.endsWith('T')) return null;
  return UNIT_SECONDS.reduce((sum, unit, index) => sum + unit * Number((match[index + 1] ?? '0').replace(',', '.')), 0);
}

function formatSeconds(total: number): string {
  const hundredths = Math.round(total * 100);
  const hours = Math.floor(hundredths / 360_000);
  const minutes = Math.floor((hundredths % 360_000) / 6_000);
  const seconds = (hundredths % 6_000) / 100;
  const parts = `${hours > 0 ? `${hours}H` : ''}${minutes > 0 ? `${minutes}M` : ''}${seconds > 0 || (hours === 0 && minutes === 0) ? `${seconds}S` : ''}`;
  return `PT${parts}`;
}

/** The total of some durations: the one given as it was written, several summed; null for none. */
function totalDuration(durations: string[]): string | null {
  if (durations.length === 0) return null;
  if (durations.length === 1) return durations[0]!;
  return formatSeconds(durations.reduce((sum, duration) => sum + (durationSeconds(duration) ?? 0), 0));
}

function scoreOf(result: Json | undefined): AttemptOutcome['score'] {
  const score = record(result?.score);
  if (score === undefined) return null;
  const out: NonNullable<AttemptOutcome['score']> = {};
  for (const key of ['scaled', 'raw', 'min', 'max'] as const) {
    const value = score[key];
    if (typeof value === 'number') out[key] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The checker.

interface Item {
  /** Position in stored order. */
  index: number;
  statement: StatementLike;
  facts: Facts;
  /** Milliseconds: the timestamp, else the stored time. */
  time: number;
  /** Written by the LMS (the Test Bench), not by the content's key. */
  byLms: boolean;
}

function items(statements: readonly AttemptStatement[]): Item[] {
  return statements
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => !entry.voided && text(record(entry.statement.verb)?.id) !== VERB.voided)
    .map(({ entry, index }) => {
      const f = facts(entry.statement);
      const stamped = f.timestamp === undefined ? Number.NaN : Date.parse(f.timestamp);
      const stored = Date.parse(entry.stored);
      return {
        index,
        statement: entry.statement,
        facts: f,
        time: Number.isFinite(stamped) ? stamped : Number.isFinite(stored) ? stored : 0,
        byLms: entry.keyId === null,
      };
    });
}

/** Time order, as cmi5 orders statements (4.2); stored order breaks ties. */
function byTime(list: Item[]): Item[] {
  return [...list].sort((a, b) => a.time - b.time || a.index - b.index);
}

class Findings {
  readonly violations: Violation[] = [];
  private readonly failing = new Set<number>();

  add(item: Item | null, rule: string, severity: Violation['severity'], message: string): void {
    this.violations.push({ statementId: item?.facts.id ?? null, rule, severity, message });
    if (item !== null && severity === 'error') this.failing.add(item.index);
  }

  /** Whether an LMS would keep the statement: it breaks no MUST. */
  accepted(item: Item): boolean {
    return !this.failing.has(item.index);
  }

  /** Violations in stored order of their statements (the order the console lists them), rule order kept within one. */
  sorted(order: ReadonlyMap<string, number>): Violation[] {
    const at = (violation: Violation) => (violation.statementId === null ? Number.MAX_SAFE_INTEGER : (order.get(violation.statementId) ?? Number.MAX_SAFE_INTEGER));
    return this.violations.map((violation, position) => ({ violation, position })).sort((a, b) => at(a.violation) - at(b.violation) || a.position - b.position).map(({ violation }) => violation);
  }
}

export function checkAttempt(
  context: Cmi5AttemptContext | TincanAttemptContext,
  statements: readonly AttemptStatement[],
): { violations: Violation[]; outcome: AttemptOutcome } {
  const all = items(statements);
  const findings = new Findings();
  const outcome = context.kind === 'cmi5' ? checkCmi5(context, all, findings) : checkTincan(context, all, findings);
  const order = new Map(all.flatMap((item) => (item.facts.id === null ? [] : [[item.facts.id, item.index] as const])));
  return { violations: findings.sorted(order), outcome };
}

// ---------------------------------------------------------------------------------------------
// cmi5

/**
 * The statements of the registration that concern this AU: those in one of its sessions, about
 * it (object or publisher grouping), and, for those with no session id at all, the ones stored
 * while one of its sessions was the latest launched (a statement with no context cannot say
 * more).
 */
function ofThisAu(context: Cmi5AttemptContext, all: Item[]): Item[] {
  const sessions = new Set(context.sessionIds);
  let latestLaunched: string | null = null;
  return all.filter((item) => {
    const f = item.facts;
    const sessionId = text(f.sessionId);
    if (f.verbId === VERB.launched && sessionId !== undefined) latestLaunched = sessionId;
    if (sessionId !== undefined && sessions.has(sessionId)) return true;
    if (f.objectId === context.auActivityId || f.grouping.includes(context.publisherId)) return true;
    if (sessionId !== undefined) return false;
    return latestLaunched === null || sessions.has(latestLaunched);
  });
}

interface SessionState {
  launchMode: string;
  /** Stored position of the LMS's abandoned, if any. */
  abandonedAt: number | null;
  hasInitialized: boolean;
  initialized: boolean;
  terminated: boolean;
  passed: boolean;
  failed: boolean;
  seenAuStatement: boolean;
}

function checkCmi5(context: Cmi5AttemptContext, all: Item[], findings: Findings): AttemptOutcome {
  const mine = byTime(ofThisAu(context, all));
  const sessions = new Set(context.sessionIds);
  const launchActor = agentIdentity(context.actor);
  const lmsVerb = (item: Item) => item.facts.verbId !== null && LMS_VERBS.has(item.facts.verbId);
  // A verb only the LMS records, sent by the AU's own key: flagged, and read as nobody's.
  for (const item of mine) {
    if (lmsVerb(item) && !item.byLms) findings.add(item, 'cmi5.lms-verb', 'error', `${item.facts.verbLabel} was sent by the AU: only the LMS records it`);
  }
  const isLms = (item: Item) => lmsVerb(item) && item.byLms;
  const auStatements = mine.filter((item) => !lmsVerb(item));
  /** A cmi5 verb the AU sends, meant as cmi5 defined: it has the category, or it is about the AU itself. */
  const definedVerb = (item: Item): string | null => {
    const { verbId, categories, objectId } = item.facts;
    if (verbId === null || !AU_VERBS.has(verbId)) return null;
    return categories.includes(CATEGORY_CMI5) || objectId === context.auActivityId ? verbId : null;
  };

  for (const item of auStatements) checkCmi5Statement(context, launchActor, item, definedVerb(item), findings);

  // Sessions: the LMS's launched sets the launch mode, its abandoned closes the session.
  const state = new Map<string, SessionState>();
  for (const sessionId of context.sessionIds) {
    state.set(sessionId, {
      launchMode: context.launchMode,
      abandonedAt: null,
      hasInitialized: false,
      initialized: false,
      terminated: false,
      passed: false,
      failed: false,
      seenAuStatement: false,
    });
  }
  for (const item of mine) {
    const session = state.get(text(item.facts.sessionId) ?? '');
    if (session === undefined) continue;
    if (item.facts.verbId === VERB.launched && isLms(item)) {
      const mode = text(item.facts.contextExtensions[EXT_LAUNCH_MODE]);
      if (mode !== undefined) session.launchMode = mode;
    }
    if (item.facts.verbId === VERB.abandoned && isLms(item) && session.abandonedAt === null) session.abandonedAt = item.index;
    if (definedVerb(item) === VERB.initialized) session.hasInitialized = true;
  }

  let completed = false;
  let passed = false;
  for (const item of auStatements) {
    const f = item.facts;
    const sessionId = text(f.sessionId);
    const session = sessionId !== undefined && sessions.has(sessionId) ? state.get(sessionId) : undefined;
    if (session === undefined || sessionId === undefined) continue; // already reported: no or unknown session id
    const where = shortSession(sessionId);
    const verb = definedVerb(item);

    if (session.abandonedAt !== null && item.index > session.abandonedAt) {
      findings.add(item, 'cmi5.after-abandoned', 'error', `${f.verbLabel} came after the LMS abandoned ${where}: once a session is abandoned, no more statements may be recorded for it`);
      continue;
    }
    if (session.terminated) {
      findings.add(item, 'cmi5.after-terminated', 'error', `${f.verbLabel} came after "terminated" in ${where}: nothing may follow terminated`);
      continue;
    }
    if (verb !== VERB.initialized && !session.initialized) {
      if (session.hasInitialized) {
        findings.add(item, 'cmi5.initialized-first', 'error', `${f.verbLabel} came before "initialized" in ${where}: initialized must be the AU's first statement of the session`);
      } else if (!session.seenAuStatement) {
        findings.add(item, 'cmi5.initialized-first', 'error', `${f.verbLabel} is the first statement of ${where}, which has no "initialized": the AU must send initialized first`);
      }
    }
    session.seenAuStatement = true;

    if (verb === VERB.initialized) {
      if (session.initialized) findings.add(item, 'cmi5.session-verb-repeated', 'error', `${f.verbLabel} came a second time in ${where}: each cmi5 defined verb may appear once per session`);
      session.initialized = true;
    } else if (verb === VERB.terminated) {
      session.terminated = true;
    } else if (verb !== null && JUDGED_VERBS.has(verb)) {
      if (session.launchMode !== 'Normal') {
        findings.add(item, 'cmi5.launch-mode', 'error', `${f.verbLabel} was sent in ${where}, launched in ${session.launchMode} mode: only initialized and terminated may be sent outside Normal mode`);
      }
      if (verb === VERB.completed) {
        if (completed) findings.add(item, 'cmi5.completed-once', 'error', `${f.verbLabel} came a second time in the registration: an AU may record completed only once per registration`);
        completed = true;
      } else if (verb === VERB.passed) {
        if (passed) findings.add(item, 'cmi5.passed-once', 'error', `${f.verbLabel} came a second time in the registration: an AU may record passed only once per registration`);
        else if (session.failed) findings.add(item, 'cmi5.session-passed-and-failed', 'error', `${f.verbLabel} came after "failed" in ${where}: a session may hold passed or failed, not both`);
        passed = true;
        session.passed = true;
      } else {
        if (passed) findings.add(item, 'cmi5.failed-after-passed', 'error', `${f.verbLabel} came after a "passed" in the registration: once passed, an AU may not record failed`);
        else if (session.failed) findings.add(item, 'cmi5.session-verb-repeated', 'error', `${f.verbLabel} came a second time in ${where}: each cmi5 defined verb may appear once per session`);
        session.failed = true;
      }
    }
  }

  // Progress after completed (SHOULD NOT), across the registration.
  let completedAt: number | null = null;
  for (const item of auStatements) {
    const progress = record(item.facts.result?.extensions)?.[EXT_PROGRESS];
    if (definedVerb(item) === VERB.completed) {
      if (progress !== undefined) findings.add(item, 'cmi5.progress-on-completed', 'warning', `${item.facts.verbLabel} carries the progress extension: completed should not report progress`);
      completedAt ??= item.index;
    } else if (completedAt !== null && progress !== undefined) {
      findings.add(item, 'cmi5.progress-after-completed', 'warning', `${item.facts.verbLabel} reports progress after the AU recorded "completed": progress should not be sent once completed`);
    }
  }

  for (const item of mine) {
    if (item.facts.verbId !== VERB.abandoned || !isLms(item)) continue;
    const sessionId = text(item.facts.sessionId);
    if (sessionId === undefined || !state.has(sessionId)) continue;
    const terminated = auStatements.some((au) => text(au.facts.sessionId) === sessionId && definedVerb(au) === VERB.terminated && au.index < item.index);
    if (!terminated) findings.add(item, 'cmi5.session-abandoned', 'warning', `The LMS abandoned ${shortSession(sessionId)}: the AU never sent "terminated" for it`);
  }

  return cmi5Outcome(context, mine, auStatements, definedVerb, findings);
}

/** The rules each statement of the AU follows on its own (4.2, 4.3, 4.5). */
function checkCmi5Statement(context: Cmi5AttemptContext, launchActor: AgentIdentity, item: Item, verb: string | null, findings: Findings): void {
  const f = item.facts;
  const label = f.verbLabel;

  const actor = agentIdentity(item.statement.actor);
  if (actor.key === null || actor.key !== launchActor.key) {
    findings.add(item, 'cmi5.actor', 'error', `${label} was sent by ${describeAgent(actor)}, not the launch actor (${describeAgent(launchActor)})`);
  }
  if (f.registration !== context.registration) {
    findings.add(
      item,
      'cmi5.registration',
      'error',
      f.registration === undefined
        ? `${label} has no context.registration: it must carry the launch registration ${context.registration}`
        : `${label} carries registration ${f.registration}, not the launch registration ${context.registration}`,
    );
  }
  if (f.sessionId === undefined) {
    findings.add(item, 'cmi5.session-id', 'error', `${label} has no session id (the context template's sessionid extension): without it the statement is not allowed in cmi5`);
  } else if (typeof f.sessionId !== 'string' || !context.sessionIds.includes(f.sessionId)) {
    findings.add(item, 'cmi5.session-unknown', 'error', `${label} carries session id ${JSON.stringify(f.sessionId)}, which the LMS never launched for this AU`);
  }
  if (!f.grouping.includes(context.publisherId)) {
    findings.add(item, 'cmi5.publisher-grouping', 'error', `${label} lacks the publisher id activity ${context.publisherId} in contextActivities.grouping (part of the context template)`);
  }
  if (f.timestamp === undefined) {
    findings.add(item, 'cmi5.timestamp', 'error', `${label} has no timestamp: cmi5 orders statements by timestamp`);
  } else if (!/(?:Z|[+]00:?00)$/i.test(f.timestamp)) {
    findings.add(item, 'cmi5.timestamp', 'error', `${label} has timestamp ${f.timestamp}, which is not in UTC`);
  }

  const cmi5Category = f.categories.includes(CATEGORY_CMI5);
  if (cmi5Category && (f.verbId === null || !AU_VERBS.has(f.verbId))) {
    findings.add(item, 'cmi5.category-not-allowed', 'error', `${label} carries the cmi5 category, but it is not a verb cmi5 defines for AUs: cmi5 allowed statements must not carry it`);
  }
  if (verb !== null && !cmi5Category) {
    findings.add(item, 'cmi5.category-cmi5', 'error', `${label} about the AU lacks the cmi5 category (${CATEGORY_CMI5}): without it, it is not a cmi5 defined statement and does not count`);
  }
  const judged = verb !== null && (has(f.result, 'success') || has(f.result, 'completion'));
  const moveOnCategory = f.categories.includes(CATEGORY_MOVEON);
  if (judged && !moveOnCategory) {
    findings.add(item, 'cmi5.category-moveon', 'error', `${label} sets result success or completion but lacks the moveon category (${CATEGORY_MOVEON})`);
  } else if (!judged && moveOnCategory) {
    findings.add(item, 'cmi5.category-moveon', 'error', `${label} carries the moveon category, which only cmi5 defined statements with result success or completion may carry`);
  }

  const progress = record(f.result?.extensions)?.[EXT_PROGRESS];
  if (progress !== undefined && !(typeof progress === 'number' && Number.isInteger(progress) && progress >= 0 && progress <= 100)) {
    findings.add(item, 'cmi5.progress', 'error', `${label} reports progress ${JSON.stringify(progress)}: it must be an integer from 0 to 100`);
  }

  if (verb === null) return;
  if (f.objectId !== context.auActivityId) {
    findings.add(item, 'cmi5.object', 'error', `${label} is about ${f.objectId ?? `an ${f.objectType}`}, not the AU (${context.auActivityId}): a cmi5 defined statement's object is the launch activityId`);
  }
  checkCmi5Result(context, item, verb, findings);
}

function checkCmi5Result(context: Cmi5AttemptContext, item: Item, verb: string, findings: Findings): void {
  const { result, verbLabel: label, contextExtensions } = item.facts;
  const success = result?.success;
  const completion = result?.completion;
  const score = record(result?.score);

  if (verb === VERB.passed && success !== true) findings.add(item, 'cmi5.result-success', 'error', `${label} must set result.success to true`);
  else if (verb === VERB.failed && success !== false) findings.add(item, 'cmi5.result-success', 'error', `${label} must set result.success to false`);
  else if (verb !== VERB.passed && verb !== VERB.failed && success !== undefined) findings.add(item, 'cmi5.result-success', 'error', `${label} must not set result.success`);

  if (verb === VERB.completed && completion !== true) findings.add(item, 'cmi5.result-completion', 'error', `${label} must set result.completion to true`);
  else if (verb !== VERB.completed && completion !== undefined) findings.add(item, 'cmi5.result-completion', 'error', `${label} must not set result.completion`);

  if (score !== undefined && verb !== VERB.passed && verb !== VERB.failed) {
    findings.add(item, 'cmi5.result-score', 'error', `${label} must not carry a score: only passed and failed may`);
  }
  if (verb !== VERB.initialized && result?.duration === undefined) {
    findings.add(item, 'cmi5.result-duration', 'error', `${label} must carry result.duration`);
  }

  if (score !== undefined) {
    const { scaled, raw, min, max } = score;
    if (scaled !== undefined && !(typeof scaled === 'number' && scaled >= 0 && scaled <= 1)) {
      findings.add(item, 'cmi5.score-range', 'error', `${label} has score.scaled ${JSON.stringify(scaled)}: it must be from 0 to 1`);
    }
    if (raw !== undefined) {
      if (typeof min !== 'number' || typeof max !== 'number') {
        findings.add(item, 'cmi5.score-range', 'error', `${label} has score.raw without both score.min and score.max`);
      } else if (typeof raw !== 'number' || raw < min || raw > max) {
        findings.add(item, 'cmi5.score-range', 'error', `${label} has score.raw ${JSON.stringify(raw)} outside score.min ${min} to score.max ${max}`);
      }
    }
  }

  if (context.masteryScore === null || (verb !== VERB.passed && verb !== VERB.failed)) return;
  const mastery = context.masteryScore;
  const scaled = typeof score?.scaled === 'number' ? score.scaled : undefined;
  if (verb === VERB.passed && scaled !== undefined && scaled < mastery) {
    findings.add(item, 'cmi5.mastery-passed', 'error', `${label} has score.scaled ${scaled}, below the masteryScore ${mastery}: the AU must send failed`);
  }
  if (verb === VERB.failed && scaled !== undefined && scaled >= mastery) {
    findings.add(item, 'cmi5.mastery-failed', 'error', `${label} has score.scaled ${scaled}, at or above the masteryScore ${mastery}: the AU must send passed`);
  }
  const extension = contextExtensions[EXT_MASTERY];
  if ((scaled !== undefined || extension !== undefined) && extension !== mastery) {
    findings.add(
      item,
      'cmi5.mastery-extension',
      'error',
      extension === undefined
        ? `${label} is judged against the masteryScore but lacks the masteryscore context extension (${mastery})`
        : `${label} carries masteryscore ${JSON.stringify(extension)}, not the launch masteryScore ${mastery}`,
    );
  }
  if (verb === VERB.passed && scaled === undefined) {
    findings.add(item, 'cmi5.passed-without-score', 'warning', `${label} has no score.scaled although a masteryScore (${mastery}) applies: players such as @xapi/cmi5 refuse to send it`);
  }
}

function cmi5Outcome(
  context: Cmi5AttemptContext,
  mine: Item[],
  auStatements: Item[],
  definedVerb: (item: Item) => string | null,
  findings: Findings,
): AttemptOutcome {
  const kept = auStatements.filter((item) => findings.accepted(item) && definedVerb(item) !== null);
  const withVerb = (verb: string) => kept.filter((item) => definedVerb(item) === verb);
  const waived = mine.some((item) => item.byLms && item.facts.verbId === VERB.waived && item.facts.objectId === context.auActivityId);
  const firstPassed = withVerb(VERB.passed)[0];
  const lastFailed = withVerb(VERB.failed).at(-1);
  const started = mine.some((item) => item.byLms && item.facts.verbId === VERB.launched) || auStatements.length > 0;

  const durations: string[] = [];
  for (const sessionId of context.sessionIds) {
    const inSession = (item: Item) => text(item.facts.sessionId) === sessionId;
    const ended = [...kept.filter((item) => inSession(item) && definedVerb(item) === VERB.terminated), ...mine.filter((item) => inSession(item) && item.byLms && item.facts.verbId === VERB.abandoned)];
    const endDuration = ended.map((item) => text(item.facts.result?.duration)).find((duration) => duration !== undefined);
    if (endDuration !== undefined) {
      durations.push(endDuration);
      continue;
    }
    // No end yet: the longest duration the AU reported in the session (each counts from initialized).
    const reported = kept.filter((item) => inSession(item) && JUDGED_VERBS.has(definedVerb(item) ?? '')).flatMap((item) => text(item.facts.result?.duration) ?? []);
    const longest = reported.reduce<string | null>((best, duration) => (best === null || (durationSeconds(duration) ?? 0) > (durationSeconds(best) ?? 0) ? duration : best), null);
    if (longest !== null) durations.push(longest);
  }

  return {
    completion: withVerb(VERB.completed).length > 0 || waived ? true : started ? false : null,
    success: firstPassed !== undefined || waived ? true : lastFailed !== undefined ? false : null,
    score: scoreOf((firstPassed ?? lastFailed)?.facts.result),
    duration: totalDuration(durations),
  };
}

// ---------------------------------------------------------------------------------------------
// Tin Can (section 5)

function checkTincan(context: TincanAttemptContext, all: Item[], findings: Findings): AttemptOutcome {
  const launchActor = agentIdentity(context.actor);
  const known = new Set([context.activityId, ...context.knownActivityIds]);
  for (const item of all) {
    const f = item.facts;
    const label = f.verbLabel;
    const actor = agentIdentity(item.statement.actor);
    if (actor.key === null || actor.key !== launchActor.key) {
      findings.add(item, 'tincan.actor', 'error', `${label} was sent by ${describeAgent(actor)}, not the launch actor (${describeAgent(launchActor)})`);
    } else if (actor.name !== null && launchActor.name !== null && actor.name !== launchActor.name) {
      findings.add(item, 'tincan.actor-name', 'warning', `${label} names the learner "${actor.name}", the launch actor is "${launchActor.name}"`);
    }
    if (f.registration !== context.registration) {
      findings.add(
        item,
        'tincan.registration',
        'error',
        f.registration === undefined
          ? `${label} has no context.registration: it must carry the launch registration ${context.registration}`
          : `${label} carries registration ${f.registration}, not the launch registration ${context.registration}`,
      );
    }
    if (f.objectType !== 'Activity') {
      findings.add(item, 'tincan.object-not-activity', 'warning', `${label} is about a ${f.objectType}, not an activity of the course`);
    } else if (f.objectId !== null && !known.has(f.objectId) && !f.objectId.startsWith(`${context.activityId}/`)) {
      findings.add(item, 'tincan.activity', 'warning', `${label} is about ${f.objectId}, which is neither the launched activity, listed in tincan.xml, nor below ${context.activityId}/`);
    }
  }
  return tincanOutcome(context, byTime(all.filter((item) => findings.accepted(item))));
}

/** From the statements about the launched activity: the latest completion, success and score; the sessions' durations. */
function tincanOutcome(context: TincanAttemptContext, kept: Item[]): AttemptOutcome {
  const about = kept.filter((item) => item.facts.objectType === 'Activity' && item.facts.objectId === context.activityId);
  const latest = (pick: (result: Json) => boolean) => about.filter((item) => item.facts.result !== undefined && pick(item.facts.result)).at(-1)?.facts.result;
  const completion = latest((result) => typeof result.completion === 'boolean')?.completion;
  const success = latest((result) => typeof result.success === 'boolean')?.success;
  const duration = (item: Item) => text(item.facts.result?.duration) ?? [];
  const sessionEnds = about.filter((item) => item.facts.verbId === VERB.terminated || item.facts.verbId === VERB.suspended).flatMap(duration);
  const judged = about.filter((item) => item.facts.verbId !== null && JUDGED_VERBS.has(item.facts.verbId)).flatMap(duration);
  return {
    completion: typeof completion === 'boolean' ? completion : null,
    success: typeof success === 'boolean' ? success : null,
    score: scoreOf(latest((result) => record(result.score) !== undefined)),
    duration: sessionEnds.length > 0 ? totalDuration(sessionEnds) : (judged.at(-1) ?? null),
  };
}
