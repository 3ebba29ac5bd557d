/** Loads the statement fixtures of test/fixtures/statements (valid/ and invalid/). */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { XapiVersion } from '../../src-server/xapi/version';

const ROOT = fileURLToPath(new URL('../fixtures/statements', import.meta.url));

export interface ValidFixture {
  name: string;
  description: string;
  versions: XapiVersion[];
  statement: Record<string, unknown>;
}

export interface InvalidFixture extends ValidFixture {
  /** The `field` the issue must name; per version when the versions reject it for different reasons. */
  field: string | Partial<Record<XapiVersion, string>>;
  /** Text the message must contain, when the fixture pins it. */
  messageIncludes?: string;
}

function load<T>(folder: 'valid' | 'invalid'): T[] {
  const dir = join(ROOT, folder);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ name: file.replace(/\.json$/, ''), ...JSON.parse(readFileSync(join(dir, file), 'utf8')) }) as T);
}

export const validFixtures = load<ValidFixture>('valid');
export const invalidFixtures = load<InvalidFixture>('invalid');

/** The field an invalid fixture expects under `version`. */
export function expectedField(fixture: InvalidFixture, version: XapiVersion): string | undefined {
  return typeof fixture.field === 'string' ? fixture.field : fixture.field[version];
}

/** A deep copy of one valid fixture's statement, to vary in a test. */
export function validStatement(name: string): Record<string, unknown> {
  const fixture = validFixtures.find((candidate) => candidate.name === name);
  if (!fixture) throw new Error(`no valid fixture ${name}`);
  return structuredClone(fixture.statement);
}
