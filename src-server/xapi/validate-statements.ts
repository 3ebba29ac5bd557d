/**
 * Validates statements as received (xAPI 1.0.3 Part Two §2.2 and §2.4; 2.0.0 the same parts):
 * the common statement by hand-written checks of the same rules (common-statement.ts), anything
 * else by one zod parse against the version's schema, and the first fault as one XapiIssue.
 * Never throws: whatever the input (null, wrong types, hostile keys, getters that throw), the
 * answer is a result.
 */

import { commonStatement } from './common-statement';
import { issueFromZod } from './issue-from-zod';
import type { XapiIssue } from './issue';
import { statementSchemas } from './statement-schema';
import type { Statement } from './statement-schema';
import type { XapiVersion } from './version';

export type ValidationResult = { ok: true; statements: Statement[] } | { ok: false; issue: XapiIssue };
export type SingleValidationResult = { ok: true; statement: Statement } | { ok: false; issue: XapiIssue };

const UNREADABLE: XapiIssue = { field: '', message: 'the statement could not be read as plain JSON' };

/** Validates one statement; the result's statement has contextActivities normalised to arrays. */
export function validateStatement(value: unknown, version: XapiVersion): SingleValidationResult {
  try {
    const common = commonStatement(value, version);
    if (common) return { ok: true, statement: common };
    const parsed = statementSchemas[version].statement.safeParse(value);
    if (parsed.success) return { ok: true, statement: parsed.data };
    return { ok: false, issue: issueFromZod(parsed.error.issues, value) };
  } catch {
    return { ok: false, issue: { ...UNREADABLE } };
  }
}

/**
 * Validates a POST/PUT body: one statement object, or an array of them (a batch). A batch stops at
 * its first invalid statement; the issue's statementIndex says which one, its field is relative
 * to that statement. Two statements of a batch with the same id are refused too (1.0.3 Part Three
 * §2.1.2.s2.b6: the LRS SHOULD* reject such a batch with 400).
 */
export function validateStatements(body: unknown, version: XapiVersion): ValidationResult {
  try {
    if (!Array.isArray(body)) {
      const single = validateStatement(body, version);
      return single.ok ? { ok: true, statements: [single.statement] } : single;
    }
    const statements: Statement[] = [];
    const firstIndexOfId = new Map<string, number>();
    for (let index = 0; index < body.length; index += 1) {
      const single = validateStatement(body[index], version);
      if (!single.ok) return { ok: false, issue: { ...single.issue, statementIndex: index } };
      const id = single.statement.id?.toLowerCase();
      if (id !== undefined) {
        const earlier = firstIndexOfId.get(id);
        if (earlier !== undefined) {
          return {
            ok: false,
            issue: {
              field: 'id',
              message: `id "${id}" is also the id of statement ${earlier} in this batch; each statement needs its own id`,
              statementIndex: index,
            },
          };
        }
        firstIndexOfId.set(id, index);
      }
      statements.push(single.statement);
    }
    return { ok: true, statements };
  } catch {
    return { ok: false, issue: { ...UNREADABLE } };
  }
}
