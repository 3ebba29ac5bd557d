/**
 * The outcome a designer expects of a package ("completed, passed, score at least 0.8"), marked
 * from an attempt that did it right (the console sends that attempt's outcome), and the verdict of
 * every attempt against it. Pure.
 */
import { z } from 'zod';
import type { AttemptOutcome } from './attempt-rules';

/** A criterion left out or null is not judged (the admin client leaves nulls out of a body). */
export const referenceOutcomeSchema = z.strictObject({
  completion: z.boolean().nullable().default(null),
  success: z.boolean().nullable().default(null),
  /** The least scaled score that meets it. */
  minScore: z.number().min(0).max(1).nullable().default(null),
});
export type ReferenceOutcome = z.output<typeof referenceOutcomeSchema>;

export interface ReferenceCriterion {
  criterion: 'completion' | 'success' | 'minScore';
  /** What the reference asks, in words. */
  expected: string;
  /** What the attempt did, in words. */
  actual: string;
  met: boolean;
}

/**
 * Whether an outcome meets a reference, criterion by criterion; a criterion the reference leaves
 * null is not checked. Completion: an LMS reads "not completed" and "not started" alike, so a
 * reference of false is met by either. Success: passed and failed must match exactly (not judged
 * is neither). Score: the scaled score (else raw within min..max) must reach minScore.
 */
export function referenceVerdict(outcome: AttemptOutcome, reference: ReferenceOutcome): { met: boolean; criteria: ReferenceCriterion[] } {
  const criteria: ReferenceCriterion[] = [];
  if (reference.completion !== null) {
    criteria.push({
      criterion: 'completion',
      expected: reference.completion ? 'Completed' : 'Not completed',
      actual: completionText(outcome.completion),
      met: (outcome.completion === true) === reference.completion,
    });
  }
  if (reference.success !== null) {
    criteria.push({
      criterion: 'success',
      expected: reference.success ? 'Passed' : 'Failed',
      actual: successText(outcome.success),
      met: outcome.success === reference.success,
    });
  }
  if (reference.minScore !== null) {
    const scaled = scaledScore(outcome.score);
    criteria.push({
      criterion: 'minScore',
      expected: `At least ${percent(reference.minScore)}`,
      actual: scoreText(outcome.score),
      // A hair of tolerance: 0.1 + 0.7 is 0.7999999999999999.
      met: scaled !== null && scaled >= reference.minScore - 1e-9,
    });
  }
  return { met: criteria.every((criterion) => criterion.met), criteria };
}

// Values in words: the verdict's, and the report's (attempt-report.ts).

export function completionText(completion: boolean | null): string {
  return completion === true ? 'Completed' : completion === false ? 'Not completed' : 'Not reported';
}

export function successText(success: boolean | null): string {
  return success === true ? 'Passed' : success === false ? 'Failed' : 'Not reported';
}

/** The scaled score, else raw placed within min..max (min 0 when only max is given). */
function scaledScore(score: AttemptOutcome['score']): number | null {
  if (score === null) return null;
  if (typeof score.scaled === 'number' && Number.isFinite(score.scaled)) return score.scaled;
  if (typeof score.raw === 'number' && typeof score.max === 'number') {
    const min = score.min ?? 0;
    return score.max > min ? (score.raw - min) / (score.max - min) : null;
  }
  return null;
}

export function scoreText(score: AttemptOutcome['score']): string {
  if (score === null) return 'Not reported';
  const parts: string[] = [];
  if (typeof score.scaled === 'number') parts.push(percent(score.scaled));
  if (typeof score.raw === 'number') {
    const range = typeof score.min === 'number' && typeof score.max === 'number' ? ` of ${score.min}–${score.max}` : typeof score.max === 'number' ? ` of ${score.max}` : '';
    parts.push(parts.length > 0 ? `(raw ${score.raw}${range})` : `raw ${score.raw}${range}`);
  }
  return parts.length > 0 ? parts.join(' ') : 'Not reported';
}

export function percent(scaled: number): string {
  return `${Math.round(scaled * 1000) / 10}%`;
}
