/**
 * cmi5 moveOn as the Test Bench's LMS evaluates it (docs/test-bench-rules.md 4.6): which AUs,
 * blocks and the course a registration has satisfied, from what the AUs (and the LMS's own
 * `waived`) recorded. Pure: no I/O, no state kept between calls.
 */
import type { StatementLike } from './attempt-rules';
import { CMI5_ID, VERB } from './cmi5-vocabulary';
import type { Cmi5Au, Cmi5Block, Cmi5Description } from './package-description';

/** What one AU has recorded in a registration, all its sessions together. */
export interface AuProgress {
  completed: boolean;
  passed: boolean;
  failed: boolean;
  waived: boolean;
}

const VERB_COMPLETED = VERB.completed;
const VERB_PASSED = VERB.passed;
const VERB_FAILED = VERB.failed;
const VERB_WAIVED = VERB.waived;
const CATEGORY_CMI5 = CMI5_ID.categoryCmi5;
const AU_FLAGS = new Map<string, keyof AuProgress>([
  [VERB_COMPLETED, 'completed'],
  [VERB_PASSED, 'passed'],
  [VERB_FAILED, 'failed'],
]);

/**
 * Whether the AU has met its moveOn: `NotApplicable` always, a `waived` always, and otherwise
 * the table of 4.6 (a `failed` never satisfies).
 */
export function auSatisfied(au: Cmi5Au, progress: AuProgress | undefined): boolean {
  if (au.moveOn === 'NotApplicable') return true;
  if (progress === undefined) return false;
  if (progress.waived) return true;
  switch (au.moveOn) {
    case 'Passed':
      return progress.passed;
    case 'Completed':
      return progress.completed;
    case 'CompletedAndPassed':
      return progress.completed && progress.passed;
    case 'CompletedOrPassed':
      return progress.completed || progress.passed;
  }
}

/**
 * The publisher ids of the blocks that are satisfied (all their AUs and nested blocks are), inner
 * blocks before the block holding them (the order an LMS sends `satisfied` in), and whether the
 * course is (all its top-level AUs and blocks are). An empty block counts as satisfied.
 */
export function satisfiedNodes(
  description: Cmi5Description,
  progressByAu: ReadonlyMap<string, AuProgress>,
): { blocks: string[]; course: boolean } {
  const blocks: string[] = [];
  const visit = (node: Cmi5Au | Cmi5Block): boolean => {
    if (node.kind === 'au') return auSatisfied(node, progressByAu.get(node.id));
    // Every child is visited, so satisfied blocks deeper down are listed even when a sibling is not.
    const results = node.children.map(visit);
    const satisfied = results.every(Boolean);
    if (satisfied) blocks.push(node.id);
    return satisfied;
  };
  const course = description.children.map(visit).every(Boolean);
  return { blocks, course };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function hasCmi5Category(statement: StatementLike): boolean {
  const category = record(record(record(statement.context)?.contextActivities))?.category;
  return Array.isArray(category) && category.some((activity) => record(activity)?.id === CATEGORY_CMI5);
}

/**
 * Each AU's progress (keyed by publisher id) from a registration's statements (voided ones already
 * left out by the caller): `completed`, `passed` and `failed` count when they are cmi5 defined
 * (they carry the cmi5 category; cmi5 allowed statements never count towards moveOn, 4.1), and
 * the LMS's `waived` counts as it is. Only statements whose object is an AU's activity id (the
 * LMS's id, not the publisher id) are read. AUs with nothing recorded are absent from the map.
 */
export function progressFromStatements(
  statements: readonly StatementLike[],
  auActivityIds: ReadonlyMap<string, string>,
): Map<string, AuProgress> {
  const progress = new Map<string, AuProgress>();
  for (const statement of statements) {
    const verb = record(statement.verb)?.id;
    const objectId = record(statement.object)?.id;
    if (typeof objectId !== 'string') continue;
    const publisherId = auActivityIds.get(objectId);
    if (publisherId === undefined) continue;
    const flag = verb === VERB_WAIVED ? 'waived' : hasCmi5Category(statement) && typeof verb === 'string' ? AU_FLAGS.get(verb) : undefined;
    if (flag === undefined) continue;
    const current = progress.get(publisherId) ?? { completed: false, passed: false, failed: false, waived: false };
    progress.set(publisherId, { ...current, [flag]: true });
  }
  return progress;
}
