/**
 * What a statement does that the xAPI specification advises against (its SHOULDs) without
 * forbidding: the statement is stored, as *accepted with warnings*, and the Statement Explorer
 * says what to fix. Checked on the statement as received (after validation), so the warnings are
 * about what the author sent, not what the LRS added.
 *
 * - `timestamp` without a time zone (1.0.3 Part Two §4.5: it SHOULD include one; it is read as
 *   UTC; 2.0.0 rejects it).
 * - A verb without `display` (§2.4.3: "display ... SHOULD be used by all Statements"): people then
 *   see only its IRI.
 * - An extension key that is no IRL (§5.3: the key SHOULD be resolvable, an http(s) URL).
 */
import type { XapiVersion } from './version';

export interface StatementWarning {
  /** Dotted path of the field, e.g. `context.extensions`. */
  field: string;
  message: string;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ZONE = /(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$/;
const IRL = /^https?:\/\/[^\s/]+/i;

function extensionWarnings(extensions: unknown, field: string): StatementWarning[] {
  if (!isPlainObject(extensions)) return [];
  const keys = Object.keys(extensions).filter((key) => !IRL.test(key));
  return keys.length === 0
    ? []
    : [{ field, message: `extension key${keys.length === 1 ? '' : 's'} ${keys.map((key) => JSON.stringify(key)).join(', ')} should be resolvable http(s) URLs (xAPI §5.3)` }];
}

export function statementWarnings(statement: unknown, version: XapiVersion): StatementWarning[] {
  if (!isPlainObject(statement)) return [];
  const warnings: StatementWarning[] = [];
  const timestamp = statement['timestamp'];
  if (typeof timestamp === 'string' && version !== '2.0.0' && !ZONE.test(timestamp)) {
    warnings.push({ field: 'timestamp', message: `timestamp "${timestamp}" has no time zone; it is read as UTC (add Z or an offset such as +02:00)` });
  }
  const verb = statement['verb'];
  if (isPlainObject(verb) && verb['display'] === undefined) {
    warnings.push({ field: 'verb.display', message: 'the verb has no display: reports show only its IRI (add e.g. {"en-US": "completed"})' });
  }
  const object = statement['object'];
  if (isPlainObject(object) && isPlainObject(object['definition'])) {
    warnings.push(...extensionWarnings(object['definition']['extensions'], 'object.definition.extensions'));
  }
  const context = statement['context'];
  if (isPlainObject(context)) warnings.push(...extensionWarnings(context['extensions'], 'context.extensions'));
  const result = statement['result'];
  if (isPlainObject(result)) warnings.push(...extensionWarnings(result['extensions'], 'result.extensions'));
  return warnings;
}
