import { describe, expect, it } from 'vitest';
import { checkAttempt } from '../../src-server/bench/attempt-rules';
import type { AttemptStatement, Cmi5AttemptContext, StatementLike, TincanAttemptContext } from '../../src-server/bench/attempt-rules';

// Statements shaped like the cmi5 spec's sample scenarios and @xapi/cmi5's output
// (docs/test-bench-rules.md 3.6, 4), and like a Storyline Tin Can course (section 5).

const uuid = (n: number) => `6f1c2e3a-0000-4000-8000-${n.toString().padStart(12, '0')}`;
const T0 = Date.parse('2025-03-04T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

const ADL = 'http://adlnet.gov/expapi/verbs/';
const VERBS = {
  launched: `${ADL}launched`,
  initialized: `${ADL}initialized`,
  completed: `${ADL}completed`,
  passed: `${ADL}passed`,
  failed: `${ADL}failed`,
  terminated: `${ADL}terminated`,
  suspended: `${ADL}suspended`,
  progressed: `${ADL}progressed`,
  answered: `${ADL}answered`,
  attempted: `${ADL}attempted`,
  experienced: `${ADL}experienced`,
  abandoned: 'https://w3id.org/xapi/adl/verbs/abandoned',
  waived: 'https://w3id.org/xapi/adl/verbs/waived',
  satisfied: 'https://w3id.org/xapi/adl/verbs/satisfied',
} as const;
type VerbName = keyof typeof VERBS;
const LMS_VERBS: readonly VerbName[] = ['launched', 'abandoned', 'waived', 'satisfied'];

const CMI5_CATEGORY = { objectType: 'Activity', id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' };
const MOVEON_CATEGORY = { objectType: 'Activity', id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' };
const EXT = 'https://w3id.org/xapi/cmi5/context/extensions/';
const PROGRESS = 'https://w3id.org/xapi/cmi5/result/extensions/progress';

const REGISTRATION = 'b3f1a7c2-9d4e-4f0a-8c61-2e5d7b9a1c30';
const ACTOR = { objectType: 'Agent', name: 'Bench Learner', account: { homePage: 'http://127.0.0.1:8411', name: 'bench-learner-1' } };
const AU_ID = 'http://127.0.0.1:8411/bench/activities/3c9e51d0/au/1';
const PUBLISHER_ID = 'https://courses.example.org/cmi5/ladder-safety/au/quiz';
const OTHER_AU_ID = 'http://127.0.0.1:8411/bench/activities/3c9e51d0/au/0';
const OTHER_PUBLISHER_ID = 'https://courses.example.org/cmi5/ladder-safety/au/intro';
const S1 = '5d0c7a4e-2f1b-4c1e-9a57-0b6e3f1d2c88';
const S2 = '8a41f3b9-6c2d-4e7f-b015-3d9c8e2a7f64';
const SESSION_KEY = 'key-session';

interface Cmi5Options {
  /** The session id; null leaves the extension out. */
  session?: string | null;
  /** Leave out the publisher id grouping. */
  noGrouping?: boolean;
  /** Categories; by default cmi5 (plus moveon when the result has success or completion) on cmi5 verbs, none on others. */
  categories?: object[];
  result?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  registration?: string | null;
  actor?: StatementLike;
  object?: StatementLike;
  publisherId?: string;
}

/** One statement as the Store keeps it; LMS verbs are stored with no key. */
function cmi5(n: number, verb: VerbName, seconds: number, options: Cmi5Options = {}): AttemptStatement {
  const definedVerb = ['initialized', 'completed', 'passed', 'failed', 'terminated', ...LMS_VERBS].includes(verb);
  const result = options.result;
  const judged = result !== undefined && (result.success !== undefined || result.completion !== undefined);
  const categories = options.categories ?? (definedVerb && verb !== 'satisfied' ? [CMI5_CATEGORY, ...(judged ? [MOVEON_CATEGORY] : [])] : []);
  const session = options.session === undefined ? S1 : options.session;
  const extensions = { ...(session === null ? {} : { [`${EXT}sessionid`]: session }), ...options.extensions };
  const statement: StatementLike = {
    id: uuid(n),
    actor: options.actor ?? ACTOR,
    verb: { id: VERBS[verb], display: { 'en-US': verb } },
    object: options.object ?? { objectType: 'Activity', id: AU_ID },
    ...(result ? { result } : {}),
    context: {
      ...(options.registration === null ? {} : { registration: options.registration ?? REGISTRATION }),
      contextActivities: {
        ...(options.noGrouping ? {} : { grouping: [{ objectType: 'Activity', id: options.publisherId ?? PUBLISHER_ID }] }),
        ...(categories.length > 0 ? { category: categories } : {}),
      },
      extensions,
    },
    timestamp: at(seconds),
    stored: at(seconds + 0.2),
    version: '1.0.0',
  };
  return { statement, stored: at(seconds + 0.2), keyId: LMS_VERBS.includes(verb) ? null : SESSION_KEY, voided: false };
}

function launched(n: number, seconds: number, session: string, launchMode = 'Normal'): AttemptStatement {
  return cmi5(n, 'launched', seconds, {
    session,
    extensions: {
      [`${EXT}launchmode`]: launchMode,
      [`${EXT}launchurl`]: 'http://127.0.0.1:8411/bench/content/3c9e51d0/quiz/index.html?theme=dark',
      [`${EXT}moveon`]: 'CompletedAndPassed',
      [`${EXT}masteryscore`]: 0.8,
    },
  });
}

const mastery = { [`${EXT}masteryscore`]: 0.8 };
const passedResult = (scaled: number, duration = 'PT4M50S') => ({ score: { scaled, raw: Math.round(scaled * 10), min: 0, max: 10 }, success: true, duration });
const failedResult = (scaled: number, duration = 'PT4M50S') => ({ score: { scaled, raw: Math.round(scaled * 10), min: 0, max: 10 }, success: false, duration });

function cmi5Context(overrides: Partial<Cmi5AttemptContext> = {}): Cmi5AttemptContext {
  return {
    kind: 'cmi5',
    registration: REGISTRATION,
    actor: ACTOR,
    auActivityId: AU_ID,
    publisherId: PUBLISHER_ID,
    masteryScore: 0.8,
    moveOn: 'CompletedAndPassed',
    launchMode: 'Normal',
    sessionIds: [S1],
    ...overrides,
  };
}

/** rule, statement id, severity: what the tests compare exactly. */
function found(statements: AttemptStatement[], context: Cmi5AttemptContext | TincanAttemptContext = cmi5Context()) {
  const { violations, outcome } = checkAttempt(context, statements);
  return { list: violations.map((violation) => [violation.rule, violation.statementId, violation.severity]), violations, outcome };
}

describe('checkAttempt, cmi5', () => {
  it('finds nothing wrong in a clean session and reads the outcome an LMS records', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 3),
      cmi5(3, 'answered', 60, {
        object: { objectType: 'Activity', id: `${AU_ID}/q1`, definition: { type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: 'choice' } },
        result: { success: true, response: 'extension-ladder' },
      }),
      cmi5(4, 'progressed', 120, { object: { objectType: 'Activity', id: AU_ID }, result: { extensions: { [PROGRESS]: 50 } } }),
      cmi5(5, 'completed', 290, { result: { completion: true, duration: 'PT4M47S' } }),
      cmi5(6, 'passed', 291, { result: passedResult(0.9), extensions: mastery }),
      cmi5(7, 'satisfied', 291.5, { object: { objectType: 'Activity', id: 'http://127.0.0.1:8411/bench/activities/3c9e51d0/course', definition: { type: 'https://w3id.org/xapi/cmi5/activitytype/course' } }, categories: [CMI5_CATEGORY], publisherId: 'https://courses.example.org/cmi5/ladder-safety' }),
      cmi5(8, 'terminated', 312, { result: { duration: 'PT5M9S' } }),
    ];
    const { list, outcome } = found(statements);
    expect(list).toEqual([]);
    expect(outcome).toEqual({ completion: true, success: true, score: { scaled: 0.9, raw: 9, min: 0, max: 10 }, duration: 'PT5M9S' });
  });

  it('flags a statement after terminated and one without the context template, each on its own statement', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 3),
      // An allowed statement sent without the context template: no session id, no publisher grouping.
      cmi5(3, 'answered', 40, { session: null, noGrouping: true, object: { objectType: 'Activity', id: `${AU_ID}/q1` }, result: { success: false } }),
      cmi5(4, 'completed', 100, { result: { completion: true, duration: 'PT1M37S' } }),
      cmi5(5, 'terminated', 110, { result: { duration: 'PT1M47S' } }),
      cmi5(6, 'passed', 111, { result: passedResult(0.9, 'PT1M48S'), extensions: mastery }),
    ];
    const { list, violations, outcome } = found(statements);
    expect(list).toEqual([
      ['cmi5.session-id', uuid(3), 'error'],
      ['cmi5.publisher-grouping', uuid(3), 'error'],
      ['cmi5.after-terminated', uuid(6), 'error'],
    ]);
    expect(violations[2]!.message).toBe('"passed" came after "terminated" in session 5d0c7a4e…: nothing may follow terminated');
    expect(violations[1]!.message).toContain(PUBLISHER_ID);
    // The LMS refuses the late passed: only the completion counts.
    expect(outcome).toEqual({ completion: true, success: null, score: null, duration: 'PT1M47S' });
  });

  it('flags passed below the masteryScore and failed at or above it', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'failed', 100, { result: failedResult(0.85), extensions: mastery }),
      cmi5(4, 'terminated', 101, { result: { duration: 'PT1M39S' } }),
      launched(5, 200, S2),
      cmi5(6, 'initialized', 202, { session: S2 }),
      cmi5(7, 'passed', 300, { session: S2, result: passedResult(0.6), extensions: mastery }),
      cmi5(8, 'terminated', 301, { session: S2, result: { duration: 'PT1M39S' } }),
    ];
    const { list, violations, outcome } = found(statements, cmi5Context({ sessionIds: [S1, S2] }));
    expect(list).toEqual([
      ['cmi5.mastery-failed', uuid(3), 'error'],
      ['cmi5.mastery-passed', uuid(7), 'error'],
    ]);
    expect(violations[1]!.message).toMatch(/score\.scaled 0\.6, below the masteryScore 0\.8/);
    expect(outcome).toEqual({ completion: false, success: null, score: null, duration: 'PT3M18S' });
  });

  it('wants the masteryscore extension on judged passed/failed and warns on passed without a score', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'failed', 50, { result: failedResult(0.5) }),
      cmi5(4, 'passed', 100, { result: { success: true, duration: 'PT1M38S' }, extensions: mastery }),
      cmi5(5, 'terminated', 101, { result: { duration: 'PT1M39S' } }),
    ];
    expect(found(statements).list).toEqual([
      ['cmi5.mastery-extension', uuid(3), 'error'],
      ['cmi5.passed-without-score', uuid(4), 'warning'],
      ['cmi5.session-passed-and-failed', uuid(4), 'error'],
    ]);
  });

  it('flags a second completed in the registration, even in a later session', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'completed', 60, { result: { completion: true, duration: 'PT58S' } }),
      cmi5(4, 'terminated', 61, { result: { duration: 'PT59S' } }),
      launched(5, 100, S2),
      cmi5(6, 'initialized', 102, { session: S2 }),
      cmi5(7, 'completed', 130, { session: S2, result: { completion: true, duration: 'PT28S' } }),
      cmi5(8, 'terminated', 131, { session: S2, result: { duration: 'PT29.5S' } }),
    ];
    const { list, outcome } = found(statements, cmi5Context({ sessionIds: [S1, S2] }));
    expect(list).toEqual([['cmi5.completed-once', uuid(7), 'error']]);
    expect(outcome).toEqual({ completion: true, success: null, score: null, duration: 'PT1M28.5S' });
  });

  it('flags a second passed, and a failed after passed, across sessions', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'passed', 60, { result: passedResult(0.9), extensions: mastery }),
      cmi5(4, 'terminated', 61, { result: { duration: 'PT59S' } }),
      launched(5, 100, S2),
      cmi5(6, 'initialized', 102, { session: S2 }),
      cmi5(7, 'failed', 120, { session: S2, result: failedResult(0.4), extensions: mastery }),
      cmi5(8, 'passed', 130, { session: S2, result: passedResult(1), extensions: mastery }),
      cmi5(9, 'terminated', 131, { session: S2, result: { duration: 'PT29S' } }),
    ];
    const { list, outcome } = found(statements, cmi5Context({ sessionIds: [S1, S2] }));
    expect(list).toEqual([
      ['cmi5.failed-after-passed', uuid(7), 'error'],
      ['cmi5.passed-once', uuid(8), 'error'],
    ]);
    // passed is final: the first one holds.
    expect(outcome).toMatchObject({ success: true, score: { scaled: 0.9 } });
  });

  it('flags completed in a Browse session (the mode from the launched statement)', () => {
    const statements = [
      launched(1, 0, S1, 'Browse'),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'completed', 30, { result: { completion: true, duration: 'PT28S' } }),
      cmi5(4, 'terminated', 31, { result: { duration: 'PT29S' } }),
    ];
    const { list, violations, outcome } = found(statements, cmi5Context({ launchMode: 'Browse' }));
    expect(list).toEqual([['cmi5.launch-mode', uuid(3), 'error']]);
    expect(violations[0]!.message).toContain('Browse mode');
    expect(outcome).toEqual({ completion: false, success: null, score: null, duration: 'PT29S' });
  });

  it('flags a statement with no session id, and one with a session the LMS never launched', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'progressed', 20, { session: null, result: { extensions: { [PROGRESS]: 30 } } }),
      cmi5(4, 'completed', 40, { session: 'made-up-session', result: { completion: true, duration: 'PT38S' } }),
      cmi5(5, 'terminated', 41, { result: { duration: 'PT39S' } }),
    ];
    const { list, violations, outcome } = found(statements);
    expect(list).toEqual([
      ['cmi5.session-id', uuid(3), 'error'],
      ['cmi5.session-unknown', uuid(4), 'error'],
    ]);
    expect(violations[1]!.message).toContain('"made-up-session"');
    expect(outcome.completion).toBe(false);
  });

  it('accepts a second session after the LMS abandoned the first, and warns that the first never terminated', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'progressed', 60, { object: { objectType: 'Activity', id: AU_ID }, result: { extensions: { [PROGRESS]: 40 } } }),
      cmi5(4, 'abandoned', 3600, { result: { duration: 'PT1M' } }),
      launched(5, 3601, S2),
      cmi5(6, 'initialized', 3603, { session: S2 }),
      cmi5(7, 'completed', 3700, { session: S2, result: { completion: true, duration: 'PT1M37S' } }),
      cmi5(8, 'passed', 3701, { session: S2, result: passedResult(0.8, 'PT1M38S'), extensions: mastery }),
      cmi5(9, 'terminated', 3720, { session: S2, result: { duration: 'PT1M57S' } }),
    ];
    const { list, outcome } = found(statements, cmi5Context({ sessionIds: [S1, S2] }));
    expect(list).toEqual([['cmi5.session-abandoned', uuid(4), 'warning']]);
    expect(outcome).toEqual({ completion: true, success: true, score: { scaled: 0.8, raw: 8, min: 0, max: 10 }, duration: 'PT2M57S' });
  });

  it('flags a statement of the abandoned session stored after abandoned', () => {
    const late = cmi5(5, 'terminated', 61, { result: { duration: 'PT59S' } });
    late.stored = at(3700); // sent long after, stored after the LMS gave up on the session
    const statements = [launched(1, 0, S1), cmi5(2, 'initialized', 2), cmi5(4, 'abandoned', 3600, { result: { duration: 'PT1M' } }), late];
    expect(found(statements).list).toEqual([
      ['cmi5.session-abandoned', uuid(4), 'warning'],
      ['cmi5.after-abandoned', uuid(5), 'error'],
    ]);
  });

  it('wants initialized first: flags what precedes it, or the first statement of a session without it', () => {
    const before = [launched(1, 0, S1), cmi5(2, 'progressed', 1, { result: { extensions: { [PROGRESS]: 0 } } }), cmi5(3, 'initialized', 2), cmi5(4, 'terminated', 9, { result: { duration: 'PT7S' } })];
    expect(found(before).list).toEqual([['cmi5.initialized-first', uuid(2), 'error']]);
    const none = [launched(1, 0, S1), cmi5(2, 'progressed', 1, { result: { extensions: { [PROGRESS]: 0 } } }), cmi5(3, 'terminated', 9, { result: { duration: 'PT7S' } })];
    const { list, violations } = found(none);
    expect(list).toEqual([['cmi5.initialized-first', uuid(2), 'error']]);
    expect(violations[0]!.message).toMatch(/has no "initialized"/);
  });

  it('orders by timestamp, not by arrival', () => {
    // terminated arrives before the completed the AU recorded earlier: no violation.
    const completed = cmi5(3, 'completed', 30, { result: { completion: true, duration: 'PT28S' } });
    completed.stored = at(40);
    const statements = [launched(1, 0, S1), cmi5(2, 'initialized', 2), cmi5(4, 'terminated', 31, { result: { duration: 'PT29S' } }), completed];
    expect(found(statements, cmi5Context({ moveOn: 'Completed', masteryScore: null })).list).toEqual([]);
  });

  it('checks the result each verb must carry', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2, { result: { duration: 'PT0S', score: { scaled: 0.1 } } }),
      cmi5(3, 'completed', 30, { result: { completion: true, extensions: { [PROGRESS]: 100 } } }),
      cmi5(4, 'passed', 40, { result: { success: true, completion: true, duration: 'PT38S', score: { scaled: 0.9, raw: 12, min: 0, max: 10 } }, extensions: mastery }),
      cmi5(5, 'terminated', 50, { categories: [CMI5_CATEGORY, MOVEON_CATEGORY] }),
    ];
    expect(found(statements).list).toEqual([
      ['cmi5.result-score', uuid(2), 'error'],
      ['cmi5.result-duration', uuid(3), 'error'],
      ['cmi5.progress-on-completed', uuid(3), 'warning'],
      ['cmi5.result-completion', uuid(4), 'error'],
      ['cmi5.score-range', uuid(4), 'error'],
      ['cmi5.category-moveon', uuid(5), 'error'],
      ['cmi5.result-duration', uuid(5), 'error'],
    ]);
  });

  it('checks actor, registration, categories and object on the AU statements, never on the LMS ones', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2, { actor: { objectType: 'Agent', mbox: 'mailto:someone@example.org' } }),
      cmi5(3, 'progressed', 10, { registration: 'a0000000-0000-4000-8000-000000000000', categories: [CMI5_CATEGORY] }),
      cmi5(4, 'completed', 20, { categories: [MOVEON_CATEGORY], result: { completion: true, duration: 'PT18S' } }),
      cmi5(5, 'passed', 30, { object: { objectType: 'Activity', id: PUBLISHER_ID }, result: passedResult(0.9, 'PT28S'), extensions: mastery }),
      cmi5(6, 'terminated', 40, { result: { duration: 'PT38S' } }),
      // The LMS's own statement is not judged by the AU rules, though it has no publisher grouping.
      cmi5(7, 'satisfied', 40.5, { object: { objectType: 'Activity', id: 'http://127.0.0.1:8411/bench/activities/3c9e51d0/course' }, noGrouping: true }),
    ];
    const { list, violations } = found(statements);
    expect(list).toEqual([
      ['cmi5.actor', uuid(2), 'error'],
      ['cmi5.registration', uuid(3), 'error'],
      ['cmi5.category-not-allowed', uuid(3), 'error'],
      ['cmi5.category-cmi5', uuid(4), 'error'],
      ['cmi5.object', uuid(5), 'error'],
    ]);
    expect(violations[0]!.message).toBe('"initialized" was sent by mbox mailto:someone@example.org, not the launch actor (account bench-learner-1 at http://127.0.0.1:8411)');
  });

  it('warns on progress after completed, and wants an integer progress', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 2),
      cmi5(3, 'progressed', 10, { result: { extensions: { [PROGRESS]: 55.5 } } }),
      cmi5(4, 'completed', 20, { result: { completion: true, duration: 'PT18S' } }),
      cmi5(5, 'progressed', 25, { result: { extensions: { [PROGRESS]: 100 } } }),
      cmi5(6, 'terminated', 30, { result: { duration: 'PT28S' } }),
    ];
    expect(found(statements).list).toEqual([
      ['cmi5.progress', uuid(3), 'error'],
      ['cmi5.progress-after-completed', uuid(5), 'warning'],
    ]);
  });

  it('leaves out other AUs of the registration, voided statements, and the waived AU counts as done', () => {
    const O1 = '1e2d3c4b-5a69-4877-8695-a4b3c2d1e0f9';
    const statements = [
      // Another AU's session, with its own mistakes: not this AU's business.
      cmi5(1, 'launched', 0, { session: O1, object: { objectType: 'Activity', id: OTHER_AU_ID }, publisherId: OTHER_PUBLISHER_ID }),
      cmi5(2, 'completed', 5, { session: O1, object: { objectType: 'Activity', id: OTHER_AU_ID }, publisherId: OTHER_PUBLISHER_ID, result: { completion: true } }),
      cmi5(3, 'waived', 100, {
        session: '0b1c2d3e-4f50-4617-8899-aabbccddeeff',
        result: { success: true, completion: true, extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/reason': 'Tested Out' } },
      }),
      { ...cmi5(4, 'failed', 90, { result: failedResult(0.9) }), voided: true },
    ];
    const { list, outcome } = found(statements, cmi5Context({ sessionIds: [] }));
    expect(list).toEqual([]);
    expect(outcome).toEqual({ completion: true, success: true, score: null, duration: null });
  });

  it('flags a verb only the LMS records when the AU sends it, and does not count it', () => {
    const statements = [
      launched(1, 0, S1),
      cmi5(2, 'initialized', 1),
      {
        ...cmi5(3, 'waived', 2, { result: { success: true, completion: true, extensions: { 'https://w3id.org/xapi/cmi5/result/extensions/reason': 'Tested Out' } } }),
        keyId: SESSION_KEY,
      },
      cmi5(4, 'terminated', 3, { result: { duration: 'PT3S' } }),
    ];
    const { list, outcome } = found(statements);
    expect(list).toEqual([['cmi5.lms-verb', uuid(3), 'error']]);
    expect(outcome).toMatchObject({ completion: false, success: null });
  });

  it('gives an unknown outcome when nothing was recorded', () => {
    expect(checkAttempt(cmi5Context({ sessionIds: [] }), [])).toEqual({ violations: [], outcome: { completion: null, success: null, score: null, duration: null } });
  });
});

// ---------------------------------------------------------------------------------------------

const COURSE = 'urn:articulate:storyline:7QfXa2LmB4k';
const SLIDE = `${COURSE}/6aB3cD4eF5g`;
const QUESTION = `${COURSE}/5hI6jK7lM8n/6oP9qR0sT1u`;
const LEARNER = { objectType: 'Agent', name: 'Ada Test', mbox: 'mailto:ada@example.org' };

function tincan(n: number, verb: VerbName, seconds: number, options: { object?: StatementLike; result?: Record<string, unknown>; actor?: StatementLike; registration?: string | null } = {}): AttemptStatement {
  const statement: StatementLike = {
    id: uuid(n),
    actor: options.actor ?? LEARNER,
    verb: { id: VERBS[verb], display: { und: verb } },
    object: options.object ?? { objectType: 'Activity', id: COURSE, definition: { type: 'http://adlnet.gov/expapi/activities/course', name: { und: 'Ladder Safety Basics' } } },
    ...(options.result ? { result: options.result } : {}),
    context: options.registration === null ? {} : { registration: options.registration ?? REGISTRATION },
    timestamp: at(seconds),
  };
  return { statement, stored: at(seconds + 0.3), keyId: 'key-tincan', voided: false };
}

function tincanContext(overrides: Partial<TincanAttemptContext> = {}): TincanAttemptContext {
  return {
    kind: 'tincan',
    registration: REGISTRATION,
    // The legacy form old launchers send: compared once normalised.
    actor: { name: ['Ada Test'], mbox: ['ada@example.org'] },
    activityId: COURSE,
    knownActivityIds: [COURSE, SLIDE, QUESTION],
    ...overrides,
  };
}

describe('checkAttempt, Tin Can', () => {
  it('finds nothing wrong in a clean Storyline attempt and reads the outcome from the course statements', () => {
    const statements = [
      tincan(1, 'attempted', 0),
      tincan(2, 'experienced', 30, { object: { objectType: 'Activity', id: SLIDE }, result: { duration: 'PT30S' } }),
      tincan(3, 'answered', 60, { object: { objectType: 'Activity', id: QUESTION }, result: { success: false, response: 'choice_5St3pLdr9Qa' } }),
      tincan(4, 'experienced', 70, { object: { objectType: 'Activity', id: `${COURSE}/9zY8xW7vU6t` } }),
      tincan(5, 'passed', 90, { result: { score: { scaled: 0.9, raw: 90, min: 0, max: 100 }, success: true, completion: true, duration: 'PT1M30S' } }),
    ];
    const { list, outcome } = found(statements, tincanContext());
    expect(list).toEqual([]);
    expect(outcome).toEqual({ completion: true, success: true, score: { scaled: 0.9, raw: 90, min: 0, max: 100 }, duration: 'PT1M30S' });
  });

  it('flags a wrong registration and a wrong actor, and leaves them out of the outcome', () => {
    const statements = [
      tincan(1, 'attempted', 0),
      tincan(2, 'completed', 50, { registration: 'a0000000-0000-4000-8000-000000000000', result: { completion: true, duration: 'PT50S' } }),
      tincan(3, 'passed', 60, { actor: { objectType: 'Agent', mbox: 'mailto:bob@example.org' }, result: { success: true, score: { scaled: 1 } } }),
      tincan(4, 'failed', 70, { registration: null, result: { success: false } }),
      tincan(5, 'suspended', 80, { actor: { objectType: 'Agent', name: 'Ada T.', mbox: 'mailto:ada@EXAMPLE.org' }, result: { duration: 'PT1M20S' } }),
    ];
    const { list, violations, outcome } = found(statements, tincanContext());
    expect(list).toEqual([
      ['tincan.registration', uuid(2), 'error'],
      ['tincan.actor', uuid(3), 'error'],
      ['tincan.registration', uuid(4), 'error'],
      ['tincan.actor-name', uuid(5), 'warning'],
    ]);
    expect(violations[0]!.message).toBe(`"completed" carries registration a0000000-0000-4000-8000-000000000000, not the launch registration ${REGISTRATION}`);
    expect(outcome).toEqual({ completion: null, success: null, score: null, duration: 'PT1M20S' });
  });

  it('warns on an object outside the course and on a non-activity object', () => {
    const statements = [
      tincan(1, 'experienced', 10, { object: { objectType: 'Activity', id: 'https://elsewhere.example.org/page' } }),
      tincan(2, 'experienced', 20, { object: { objectType: 'StatementRef', id: uuid(1) } }),
      tincan(3, 'experienced', 30, { object: { objectType: 'Activity', id: `${COURSE}-other` } }),
    ];
    expect(found(statements, tincanContext({ knownActivityIds: [] })).list).toEqual([
      ['tincan.activity', uuid(1), 'warning'],
      ['tincan.object-not-activity', uuid(2), 'warning'],
      ['tincan.activity', uuid(3), 'warning'],
    ]);
  });

  it('sums the durations of several sessions', () => {
    const statements = [
      tincan(1, 'attempted', 0),
      tincan(2, 'suspended', 100, { result: { duration: 'PT1M40S' } }),
      tincan(3, 'terminated', 4000, { result: { duration: 'PT1H0M30.25S' } }),
    ];
    expect(found(statements, tincanContext()).outcome.duration).toBe('PT1H2M10.25S');
  });
});
