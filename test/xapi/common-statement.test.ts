/**
 * The common-statement shortcut (common-statement.ts) against the zod schema it stands in for:
 * over every fixture and thousands of variants of them (each member removed, replaced by values
 * of every kind, joined by unknown keys), whatever the shortcut accepts the schema accepts, with
 * the same output, key order included; and it does accept the common statements.
 */
import { describe, expect, it } from 'vitest';
import { commonStatement } from '../../src-server/xapi/common-statement';
import { statementSchemas } from '../../src-server/xapi/statement-schema';
import type { XapiVersion } from '../../src-server/xapi/version';
import { invalidFixtures, validFixtures } from './fixtures';

const VERSIONS: XapiVersion[] = ['1.0.3', '2.0.0'];

/** A statement as the write path's bench sends them: result, context, extensions, definitions. */
const COMMON = {
  actor: { objectType: 'Agent', name: 'Ada Lovelace 12', mbox: 'mailto:learner12@example.com' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/answered', display: { 'en-US': 'answered', 'fr-FR': 'a répondu' } },
  object: {
    objectType: 'Activity',
    id: 'https://courses.example.com/safety/course-3/module-1/item-2',
    definition: {
      name: { 'en-US': 'Safety 3, module 1, item 2' },
      description: { 'en-US': 'Item 2 of module 1.' },
      type: 'http://adlnet.gov/expapi/activities/interaction',
      moreInfo: 'https://courses.example.com/info',
      extensions: { 'https://example.com/ext/level': { deep: [1, 'two', null, { three: true }] } },
    },
  },
  result: {
    score: { scaled: 0.5, raw: 50, min: 0, max: 100 },
    success: false,
    completion: true,
    response: 'choice-2',
    duration: 'PT12M30S',
    extensions: { 'https://example.com/ext/attempt': 2 },
  },
  context: {
    registration: 'ec531277-b57b-4c15-8d91-d292c5b2b8f7',
    instructor: { account: { homePage: 'https://lms.example.com', name: 'teacher-1' } },
    contextActivities: {
      parent: [{ objectType: 'Activity', id: 'https://courses.example.com/safety/course-3/module-1' }],
      grouping: { id: 'https://courses.example.com/safety/course-3' },
      category: [{ id: 'https://w3id.org/xapi/scorm', definition: { type: 'http://adlnet.gov/expapi/activities/profile' } }],
    },
    revision: 'r2',
    platform: 'Lore bench LMS',
    language: 'en-US',
    statement: { objectType: 'StatementRef', id: '8f87ccde-bb56-4c2e-ab83-44982ef22df0' },
    extensions: { 'https://lms.example.com/extensions/session': 'f1c2', 'https://lms.example.com/extensions/cohort': 7 },
  },
  timestamp: '2026-01-01T10:00:00.123Z',
  stored: '2026-01-01T10:00:01.000+02:00',
  version: '1.0.3',
  id: '6690E6C9-3EF0-4ED3-8B37-7F3964730BEE',
};

const VOIDING = {
  actor: { mbox_sha1sum: 'ebd31e95054c018b10727ccffd2ef2ec3a016ee9' },
  verb: { id: 'http://adlnet.gov/expapi/verbs/voided' },
  object: { objectType: 'StatementRef', id: 'e05aa883-acaf-40ad-bf54-02c8ce485fb0' },
};

const AGENT_OBJECT = {
  actor: { openid: 'https://openid.example.com/ada', objectType: 'Agent' },
  verb: { id: 'http://example.com/verbs/mentored', display: {} },
  object: { objectType: 'Agent', name: 'Grace', mbox: 'mailto:grace@example.com' },
  context: { language: 'fr-CA' },
};

/** Values of every kind a member can be replaced by. */
const REPLACEMENTS: unknown[] = [
  null, 0, -2, 1.5, 101, '', 'x', 'not a uri', 'http://x.com/a', 'http://x.com/a b', 'mailto:a@b.c', 'en-US', 'PT1S', 'P1W2D',
  '2024-01-01T00:00:00Z', '2024-01-01T00:00:00', '2024-02-30T00:00:00Z', 'ec531277-b57b-4c15-8d91-d292c5b2b8f7', '1.0.3', '2.0.1', true, [], {}, [{}],
  { id: 'http://x.com/activity' }, { 'en-US': 'x' }, { 'not a tag!': 'x' }, { 'http://x.com/e': 1 }, { objectType: 'Agent' }, { objectType: 'Group', member: [] },
  'StatementRef', 'Activity', 'Agent', 'SubStatement', 'Group',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a member or item of `value`. */
function paths(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => [[...at, key], ...paths((value as Record<string | number, unknown>)[key], [...at, key])]);
}

/** A copy of `statement` with the member at `path` changed by `change` (JSON round trip: plain objects). */
function variant(statement: unknown, path: Array<string | number>, change: (parent: Record<string | number, Json>, key: string | number) => void): unknown {
  const copy = JSON.parse(JSON.stringify(statement)) as Record<string | number, Json>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, Json>;
  change(parent, path.at(-1)!);
  return copy;
}

function variantsOf(statement: unknown): unknown[] {
  const out: unknown[] = [statement];
  const all = paths(statement);
  for (const path of all) {
    out.push(variant(statement, path, (parent, key) => (Array.isArray(parent) ? parent.splice(key as number, 1) : delete parent[key])));
    for (const replacement of REPLACEMENTS) out.push(variant(statement, path, (parent, key) => (parent[key] = replacement as Json)));
    // A member or item's own members joined by an unknown key, a wrong-case key, and "__proto__".
    out.push(variant(statement, path, (parent, key) => {
      const member = parent[key];
      if (typeof member === 'object' && member !== null && !Array.isArray(member)) member.dummy = 1;
    }));
  }
  out.push(JSON.parse(JSON.stringify(statement).replace(/^\{/, '{"ID":"x",')));
  out.push(JSON.parse(JSON.stringify(statement).replace(/^\{/, '{"__proto__":{"id":"x"},')));
  for (const path of all) {
    const text = JSON.stringify(variant(statement, path, (parent, key) => {
      const member = parent[key];
      if (typeof member === 'object' && member !== null && !Array.isArray(member)) member.marker = 1;
    }));
    out.push(JSON.parse(text.replace('"marker":1', '"__proto__":{"polluted":1}')));
  }
  return out;
}

describe('commonStatement: a shortcut of the schema, never a second rule set', () => {
  // Varied: the common shapes and the fixtures the shortcut takes (what it leaves to the schema
  // stays there, varied or not); the invalid fixtures as they are.
  const taken = validFixtures.map((f) => f.statement).filter((statement) => VERSIONS.some((version) => commonStatement(statement, version) !== null));
  const candidates = [...[COMMON, VOIDING, AGENT_OBJECT, ...taken].flatMap(variantsOf), ...invalidFixtures.map((f) => f.statement)];

  it('accepts only what the schema accepts, with exactly the schema’s output', () => {
    let accepted = 0;
    let checked = 0;
    for (const candidate of candidates) {
      for (const version of VERSIONS) {
        checked++;
        const common = commonStatement(candidate, version);
        if (common === null) continue;
        accepted++;
        const parsed = statementSchemas[version].statement.safeParse(candidate);
        if (!parsed.success) throw new Error(`accepted what the schema refuses (${version}): ${JSON.stringify(candidate)}\n${parsed.error.message}`);
        // Key order too: the stored statement's text is the same as the schema's output would make.
        expect(JSON.stringify(common)).toBe(JSON.stringify(parsed.data));
        expect(common).toEqual(parsed.data);
      }
    }
    // Not a test that passes by never answering: the common shapes and many variants go through it.
    expect(checked).toBeGreaterThan(10_000);
    expect(taken.length).toBeGreaterThan(5);
    expect(accepted).toBeGreaterThan(checked / 25);
  });

  it('accepts the common statements and gives back new objects, extension values as received', () => {
    for (const statement of [COMMON, VOIDING, AGENT_OBJECT]) {
      for (const version of VERSIONS) expect(commonStatement(statement, version)).not.toBeNull();
    }
    const common = commonStatement(COMMON, '1.0.3')!;
    expect(common.actor).not.toBe(COMMON.actor);
    expect(common.context?.contextActivities?.grouping).toEqual([{ id: 'https://courses.example.com/safety/course-3' }]);
    const extension = (common.object as { definition: { extensions: Record<string, unknown> } }).definition.extensions['https://example.com/ext/level'];
    expect(extension).toBe(COMMON.object.definition.extensions['https://example.com/ext/level']);
  });

  it('leaves the rarer shapes and every invalid statement to the schema', () => {
    const rare = validFixtures.filter((f) => /group|substatement|attachment|authority|interaction|context-agents/i.test(f.name));
    expect(rare.length).toBeGreaterThan(0);
    for (const fixture of rare) for (const version of VERSIONS) expect(commonStatement(fixture.statement, version), fixture.name).toBeNull();
    for (const fixture of invalidFixtures) for (const version of fixture.versions) expect(commonStatement(fixture.statement, version), fixture.name).toBeNull();
  });
});
