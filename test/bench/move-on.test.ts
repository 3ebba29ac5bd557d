import { describe, expect, it } from 'vitest';
import { auSatisfied, progressFromStatements, satisfiedNodes } from '../../src-server/bench/move-on';
import type { AuProgress } from '../../src-server/bench/move-on';
import type { StatementLike } from '../../src-server/bench/attempt-rules';
import type { Cmi5Au, Cmi5Block, Cmi5Description, MoveOn } from '../../src-server/bench/package-description';

const COURSE = 'https://courses.example.org/cmi5/ladder-safety';

function au(id: string, moveOn: MoveOn): Cmi5Au {
  return {
    kind: 'au',
    id: `${COURSE}/au/${id}`,
    title: id,
    url: `${id}/index.html`,
    moveOn,
    masteryScore: null,
    launchMethod: 'AnyWindow',
    launchParameters: null,
    entitlementKey: null,
    activityType: null,
  };
}

function block(id: string, children: Array<Cmi5Au | Cmi5Block>): Cmi5Block {
  return { kind: 'block', id: `${COURSE}/block/${id}`, title: id, children };
}

function course(children: Array<Cmi5Au | Cmi5Block>): Cmi5Description {
  return { kind: 'cmi5', title: 'Ladder Safety', root: '', course: { id: COURSE, title: 'Ladder Safety', description: null }, children, units: [] };
}

const NONE: AuProgress = { completed: false, passed: false, failed: false, waived: false };
const progress = (flags: Partial<AuProgress>): AuProgress => ({ ...NONE, ...flags });

describe('auSatisfied', () => {
  // The table of docs/test-bench-rules.md 4.6, row by row.
  it.each<[MoveOn, Partial<AuProgress>, boolean]>([
    ['Passed', { passed: true }, true],
    ['Passed', { completed: true }, false],
    ['Passed', { failed: true }, false],
    ['Completed', { completed: true }, true],
    ['Completed', { passed: true }, false],
    ['CompletedAndPassed', { completed: true, passed: true }, true],
    ['CompletedAndPassed', { completed: true }, false],
    ['CompletedAndPassed', { passed: true }, false],
    ['CompletedAndPassed', { completed: true, failed: true }, false],
    ['CompletedOrPassed', { completed: true }, true],
    ['CompletedOrPassed', { passed: true }, true],
    ['CompletedOrPassed', { failed: true }, false],
    ['NotApplicable', {}, true],
  ])('%s with %o: %s', (moveOn, flags, expected) => {
    expect(auSatisfied(au('quiz', moveOn), progress(flags))).toBe(expected);
  });

  it('is satisfied by nothing at all only for NotApplicable', () => {
    expect(auSatisfied(au('intro', 'NotApplicable'), undefined)).toBe(true);
    for (const moveOn of ['Passed', 'Completed', 'CompletedAndPassed', 'CompletedOrPassed'] as const) {
      expect(auSatisfied(au('intro', moveOn), undefined)).toBe(false);
    }
  });

  it('counts a waived AU as satisfied whatever its moveOn', () => {
    for (const moveOn of ['Passed', 'Completed', 'CompletedAndPassed', 'CompletedOrPassed'] as const) {
      expect(auSatisfied(au('quiz', moveOn), progress({ waived: true }))).toBe(true);
    }
  });
});

describe('satisfiedNodes', () => {
  const intro = au('intro', 'Completed');
  const quiz = au('quiz', 'CompletedAndPassed');
  const video = au('video', 'NotApplicable');
  const final = au('final', 'Passed');
  // course: [core: [intro, practice: [quiz, video]], final]
  const practice = block('practice', [quiz, video]);
  const core = block('core', [intro, practice]);
  const description = course([core, final]);

  it('satisfies nothing but NotApplicable-only blocks before anything is recorded', () => {
    expect(satisfiedNodes(description, new Map())).toEqual({ blocks: [], course: false });
    expect(satisfiedNodes(course([block('extras', [video])]), new Map())).toEqual({ blocks: [`${COURSE}/block/extras`], course: true });
  });

  it('satisfies a nested block on its own, its parent only when all of the parent is', () => {
    const quizDone = new Map([[quiz.id, progress({ completed: true, passed: true })]]);
    expect(satisfiedNodes(description, quizDone)).toEqual({ blocks: [practice.id], course: false });
    const coreDone = new Map([...quizDone, [intro.id, progress({ completed: true })]]);
    expect(satisfiedNodes(description, coreDone)).toEqual({ blocks: [practice.id, core.id], course: false });
    const all = new Map([...coreDone, [final.id, progress({ passed: true })]]);
    expect(satisfiedNodes(description, all)).toEqual({ blocks: [practice.id, core.id], course: true });
  });

  it('lets a waived AU stand in for a passed one, and never a failed one', () => {
    const waived = new Map([
      [quiz.id, progress({ waived: true })],
      [intro.id, progress({ completed: true })],
      [final.id, progress({ failed: true })],
    ]);
    expect(satisfiedNodes(description, waived)).toEqual({ blocks: [practice.id, core.id], course: false });
  });
});

describe('progressFromStatements', () => {
  const ADL = 'http://adlnet.gov/expapi/verbs/';
  const CMI5_CATEGORY = { id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' };
  const QUIZ_ACTIVITY = 'http://127.0.0.1:8411/bench/activities/3c9e51d0/au/1';
  const INTRO_ACTIVITY = 'http://127.0.0.1:8411/bench/activities/3c9e51d0/au/0';
  const ids = new Map([
    [QUIZ_ACTIVITY, `${COURSE}/au/quiz`],
    [INTRO_ACTIVITY, `${COURSE}/au/intro`],
  ]);
  const statement = (verb: string, object: string, category = true): StatementLike => ({
    actor: { account: { homePage: 'http://127.0.0.1:8411', name: 'bench-learner-1' } },
    verb: { id: verb },
    object: { objectType: 'Activity', id: object },
    context: { contextActivities: category ? { category: [CMI5_CATEGORY] } : {} },
  });

  it('reads completed, passed, failed and waived about the AUs, keyed by publisher id', () => {
    const result = progressFromStatements(
      [
        statement(`${ADL}initialized`, QUIZ_ACTIVITY),
        statement(`${ADL}failed`, QUIZ_ACTIVITY),
        statement(`${ADL}passed`, QUIZ_ACTIVITY),
        statement(`${ADL}completed`, QUIZ_ACTIVITY),
        statement('https://w3id.org/xapi/adl/verbs/waived', INTRO_ACTIVITY),
      ],
      ids,
    );
    expect(result).toEqual(
      new Map([
        [`${COURSE}/au/quiz`, { completed: true, passed: true, failed: true, waived: false }],
        [`${COURSE}/au/intro`, { completed: false, passed: false, failed: false, waived: true }],
      ]),
    );
  });

  it('ignores other objects, publisher ids as objects, and cmi5 allowed statements (no cmi5 category)', () => {
    const result = progressFromStatements(
      [
        statement(`${ADL}passed`, `${QUIZ_ACTIVITY}/q1`),
        statement(`${ADL}completed`, `${COURSE}/au/quiz`),
        statement(`${ADL}completed`, QUIZ_ACTIVITY, false),
        { verb: { id: `${ADL}completed` } },
      ],
      ids,
    );
    expect(result).toEqual(new Map());
  });
});
