/** Loads the statement fixtures of test/fixtures/activities, validated as the LRS would. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Statement } from '../../src-server/xapi/statement-schema';
import { validateStatements } from '../../src-server/xapi/validate-statements';

export type ActivityFixture = 'meeting-en' | 'meeting-fr' | 'defined-in-context' | 'defined-in-substatement';

/** The fixture as JSON, as a client sends it. */
export function activityFixture(name: ActivityFixture): Record<string, unknown> {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../fixtures/activities/${name}.json`, import.meta.url)), 'utf8')) as Record<string, unknown>;
}

/** The fixture after validation (contextActivities as arrays). */
export function validatedFixture(name: ActivityFixture): Statement {
  const result = validateStatements(activityFixture(name), '2.0.0');
  if (!result.ok) throw new Error(`fixture ${name} is invalid: ${result.issue.message}`);
  return result.statements[0]!;
}
